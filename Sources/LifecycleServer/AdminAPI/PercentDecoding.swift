/// Percent-decoding of one path segment or query component (RFC 3986 §2.1), on bytes.
///
/// The server hands the path over still encoded; parameters such as `{sub}` are decoded here, after the
/// path was split on `/`, so an encoded `%2F` stays inside its segment.
package enum PercentDecoding {
    /// The decoded text, or nil when a `%` is not followed by two hex digits or the result is not UTF-8.
    /// `+` is kept as is: it means a space only in HTML form bodies, not in URIs.
    static func decode(_ text: Substring) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            output.append(high << 4 | low)
        }
        return String(validating: output, as: UTF8.self)
    }

    /// Encodes everything except RFC 3986 unreserved characters, for building request targets (CLI).
    package static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(Character(Unicode.Scalar(byte)))
            default:
                let digits = Array("0123456789ABCDEF")
                output += "%\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `name=value` pairs of a query string, decoded; nil when a component is badly encoded.
    static func queryItems(_ query: String?) -> [(name: String, value: String)]? {
        guard let query, !query.isEmpty else { return [] }
        var items: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            items.append((name, value))
        }
        return items
    }
}
