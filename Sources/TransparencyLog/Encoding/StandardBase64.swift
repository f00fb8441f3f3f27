import LifecycleCrypto

/// Base64 with the standard alphabet and `=` padding (RFC 4648 §4), the encoding c2sp.org/signed-note,
/// tlog-checkpoint and tlog-proof use for keys, signatures and hashes.
///
/// Decoding is strict: padding is required, no whitespace, and the unused low bits of the last character
/// must be zero, so every byte string has exactly one accepted text. A verifier that accepted two spellings of
/// one root hash would let a log show different checkpoint bytes for the same tree.
enum StandardBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let padding = UInt8(ascii: "=")

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = UInt32(input[index])
            let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
            let chunk = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(chunk >> 18 & 0x3F)])
            out.append(alphabet[Int(chunk >> 12 & 0x3F)])
            out.append(remaining > 1 ? alphabet[Int(chunk >> 6 & 0x3F)] : padding)
            out.append(remaining > 2 ? alphabet[Int(chunk & 0x3F)] : padding)
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? { decode(bytes: Array(text.utf8)) }

    /// Decodes padded standard base64; nil for anything that is not the canonical encoding of some bytes.
    static func decode<Bytes: Collection<UInt8>>(bytes text: Bytes) -> [UInt8]? {
        let input = Array(text)
        guard input.count % 4 == 0 else { return nil }
        var padCount = 0
        if input.last == padding { padCount += 1 }
        if input.count >= 2, input[input.count - 2] == padding { padCount += 1 }
        if padCount == 1, input.last != padding { return nil }
        return input.withUnsafeBufferPointer { input in
            Base64Sextets.decode(UnsafeBufferPointer(rebasing: input.dropLast(padCount)), table: decodeTable)
        }
    }
}
