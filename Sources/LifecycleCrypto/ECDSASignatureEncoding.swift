/// The two encodings of one ECDSA signature `(r, s)`, and the strict conversion between them.
///
/// OpenSSL produces and consumes the DER `Ecdsa-Sig-Value` (RFC 3279 §2.2.3: `SEQUENCE { r INTEGER, s INTEGER }`,
/// X.690 DER). JWS `ES256` carries instead the fixed-width concatenation `r ‖ s`, each the unsigned big-endian
/// integer left-padded with zeros to the byte length of the group order (32 octets for P-256), 64 octets in all
/// (RFC 7518 §3.4). A DER signature sent to Apple is refused as `invalid_client`, so the conversion matters.
///
/// Both directions are pure and total: malformed input gives nil, never a trap. DER is read strictly (shortest
/// length forms, minimal non-negative integers, nothing after the sequence), so each signature has one accepted
/// encoding.
public enum ECDSASignatureEncoding {
    /// Octets of each of `r` and `s` in the JOSE form of a P-256 signature (RFC 7518 §3.4).
    public static let p256ComponentLength = 32

    /// Widest component accepted: P-521's 66 octets with room to spare, so sizes never overflow.
    static let maximumComponentLength = 128

    private static let sequenceTag: UInt8 = 0x30
    private static let integerTag: UInt8 = 0x02

    /// The JOSE `r ‖ s` form of a DER `Ecdsa-Sig-Value`; nil when the DER is malformed or an integer does not
    /// fit in `componentLength` octets.
    public static func jose(
        fromDER der: [UInt8], componentLength: Int = p256ComponentLength
    ) -> [UInt8]? {
        guard componentLength > 0, componentLength <= maximumComponentLength else { return nil }
        var reader = DERReader(bytes: der)
        guard reader.readByte() == sequenceTag, let contentLength = reader.readLength(),
            contentLength == reader.remaining
        else { return nil }
        guard let r = reader.readUnsignedInteger(), let s = reader.readUnsignedInteger(), reader.remaining == 0,
            r.count <= componentLength, s.count <= componentLength
        else { return nil }
        var out = [UInt8](repeating: 0, count: componentLength * 2)
        out.replaceSubrange((componentLength - r.count)..<componentLength, with: r)
        out.replaceSubrange((2 * componentLength - s.count)..<(2 * componentLength), with: s)
        return out
    }

    /// The DER `Ecdsa-Sig-Value` of a JOSE `r ‖ s` signature; nil unless it is exactly `2 × componentLength`
    /// octets.
    public static func der(
        fromJOSE jose: [UInt8], componentLength: Int = p256ComponentLength
    ) -> [UInt8]? {
        guard componentLength > 0, componentLength <= maximumComponentLength, jose.count == componentLength * 2
        else { return nil }
        let r = integer(jose[0..<componentLength])
        let s = integer(jose[componentLength...])
        return [sequenceTag] + length(r.count + s.count) + r + s
    }

    /// A DER INTEGER of the unsigned big-endian `magnitude`: leading zeros removed, one zero octet added back
    /// when the high bit would otherwise make it negative (X.690 §8.3).
    private static func integer(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var digits = Array(magnitude.drop { $0 == 0 })
        if digits.isEmpty { digits = [0] }
        if digits[0] & 0x80 != 0 { digits.insert(0, at: 0) }
        return [integerTag] + length(digits.count) + digits
    }

    /// A DER definite length in its shortest form (X.690 §8.1.3, §10.1).
    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var octets: [UInt8] = []
        var value = count
        while value > 0 {
            octets.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}

/// A cursor over DER octets that answers nil instead of reading past the end.
private struct DERReader {
    let bytes: [UInt8]
    var index = 0

    var remaining: Int { bytes.count - index }

    mutating func readByte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    /// A definite length in its shortest form: short form below 128, otherwise at most two length octets with
    /// no leading zero and a value that needed the long form.
    mutating func readLength() -> Int? {
        guard let first = readByte() else { return nil }
        if first < 0x80 { return Int(first) }
        let octetCount = Int(first & 0x7F)
        guard octetCount >= 1, octetCount <= 2 else { return nil }
        var value = 0
        for position in 0..<octetCount {
            guard let octet = readByte() else { return nil }
            if position == 0, octet == 0 { return nil }
            value = value << 8 | Int(octet)
        }
        guard value >= 0x80 else { return nil }
        return value
    }

    /// A non-negative INTEGER in minimal form, returned without its sign octet.
    mutating func readUnsignedInteger() -> ArraySlice<UInt8>? {
        guard readByte() == 0x02, let length = readLength(), length >= 1, length <= remaining else { return nil }
        let content = bytes[index..<(index + length)]
        index += length
        let first = content[content.startIndex]
        if first & 0x80 != 0 { return nil }  // negative
        if length > 1, first == 0 {
            // A leading zero is allowed only to keep the next octet's high bit from reading as a sign.
            guard content[content.startIndex + 1] & 0x80 != 0 else { return nil }
            return content.dropFirst()
        }
        return content
    }
}
