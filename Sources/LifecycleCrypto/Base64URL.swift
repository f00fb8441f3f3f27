/// Base64url (RFC 4648 §5), the encoding of every JWS segment and JWK number (RFC 7515 §2, RFC 7518 §6.3).
///
/// Decoding is strict: only the URL-safe alphabet, no whitespace, no standard-alphabet `+` or `/`, no
/// impossible length (a remainder of one character), and the unused low bits of the last character must be
/// zero, so each byte string has exactly one accepted encoding. Trailing `=` padding is tolerated because some
/// encoders emit it, but only in the amount the length implies.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let padding = UInt8(ascii: "=")

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Unpadded base64url.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 0x3F)])
            out.append(alphabet[Int(chunk >> 12 & 0x3F)])
            out.append(alphabet[Int(chunk >> 6 & 0x3F)])
            out.append(alphabet[Int(chunk & 0x3F)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            out.append(alphabet[Int(chunk >> 18 & 0x3F)])
            out.append(alphabet[Int(chunk >> 12 & 0x3F)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(chunk >> 18 & 0x3F)])
            out.append(alphabet[Int(chunk >> 12 & 0x3F)])
            out.append(alphabet[Int(chunk >> 6 & 0x3F)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? { decode(bytes: Array(text.utf8)) }

    /// Decodes base64url octets; nil when anything about the input is not a canonical encoding.
    public static func decode<Bytes: Collection<UInt8>>(bytes text: Bytes) -> [UInt8]? {
        var input = Array(text)
        var padCount = 0
        while let last = input.last, last == padding {
            input.removeLast()
            padCount += 1
        }
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        if padCount > 0 {
            guard remainder != 0, padCount == 4 - remainder else { return nil }
        }
        return input.withUnsafeBufferPointer { Base64Sextets.decode($0, table: decodeTable) }
    }
}
