/// Strict `application/x-www-form-urlencoded` parsing for the stand-in: `name=value` pairs joined by `&`, `+`
/// for space, `%XX` escapes. Nil on a bad escape, invalid UTF-8 or a repeated name (RFC 6749 §3.2: parameters
/// must not be sent more than once).
enum FakeFormDecoding {
    static func decode(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        if body.isEmpty { return fields }
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            guard let name = unescape(pair[pair.startIndex..<equals]),
                let value = unescape(pair[pair.index(after: equals)...]), !name.isEmpty, fields[name] == nil
            else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 0x61 + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 0x41 + 10
        default: nil
        }
    }
}
