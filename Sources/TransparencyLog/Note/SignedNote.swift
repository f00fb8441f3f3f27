/// A text signed by one or more keys (c2sp.org/signed-note): the text, ending in a newline, then a blank
/// line, then one signature line per signature.
///
/// Parsing checks only the format. The text must be ignored until ``verifiedKeys(trusting:)`` has found a
/// signature by a trusted key (c2sp.org/signed-note: "The text MUST be ignored unless the note is signed by a
/// trusted key").
public struct SignedNote: Hashable, Sendable {
    /// How many signature lines a parse accepts by default. The spec asks verifiers to cap the count and to
    /// accept at least 16; golang.org/x/mod/sumdb/note caps it at 100.
    public static let defaultSignatureLimit = 100

    /// The signed text, final newline included, separating blank line excluded.
    public var text: String
    public var signatures: [NoteSignature]

    public init(text: String, signatures: [NoteSignature]) {
        self.text = text
        self.signatures = signatures
    }

    /// The note as it is stored and served.
    public var bytes: [UInt8] {
        var out = Array(text.utf8)
        out.append(0x0A)
        for signature in signatures {
            out.append(contentsOf: signature.line.utf8)
            out.append(0x0A)
        }
        return out
    }

    /// Parses a note; any departure from c2sp.org/signed-note §Format is `malformedNote` with the reason. Never
    /// traps, whatever the bytes.
    public init(parsing bytes: [UInt8], signatureLimit: Int = SignedNote.defaultSignatureLimit)
        throws(TransparencyLogError)
    {
        guard let whole = String(validating: bytes, as: UTF8.self) else {
            throw TransparencyLogError(.malformedNote, "a signed note must be valid UTF-8")
        }
        if let control = whole.unicodeScalars.first(where: { $0.value < 0x20 && $0 != "\n" }) {
            throw TransparencyLogError(
                .malformedNote, "a signed note must not contain control character U+00\(Self.hex2(control.value))")
        }
        // The text ends at the last blank line: the text may itself contain blank lines.
        guard let split = Self.lastBlankLine(bytes) else {
            throw TransparencyLogError(.malformedNote, "a signed note needs a blank line before its signatures")
        }
        let textBytes = bytes[..<(split + 1)]
        let signatureBytes = bytes[(split + 2)...]
        guard !signatureBytes.isEmpty, signatureBytes.last == 0x0A else {
            throw TransparencyLogError(
                .malformedNote, "a signed note ends with signature lines, each ending in a newline")
        }
        var signatures: [NoteSignature] = []
        for line in signatureBytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false) {
            guard signatures.count < signatureLimit else {
                throw TransparencyLogError(.malformedNote, "a signed note with more than \(signatureLimit) signatures")
            }
            signatures.append(try Self.parseSignature(line))
        }
        text = String(decoding: textBytes, as: UTF8.self)
        self.signatures = signatures
    }

    /// `— <name> <base64>`: the name runs to the first space, the base64 holds at least a key ID and one byte.
    private static func parseSignature(_ line: ArraySlice<UInt8>) throws(TransparencyLogError) -> NoteSignature {
        let prefix: [UInt8] = [0xE2, 0x80, 0x94, 0x20]  // U+2014 EM DASH, SPACE
        guard line.starts(with: prefix) else {
            throw TransparencyLogError(.malformedNote, "a signature line starts with an em dash and a space")
        }
        let rest = line.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: 0x20) else {
            throw TransparencyLogError(.malformedNote, "a signature line is \"— <key name> <base64 signature>\"")
        }
        let name = String(decoding: rest[..<space], as: UTF8.self)
        guard NoteKeyName.isValid(name) else {
            throw TransparencyLogError(
                .malformedNote, "signature key name \"\(name)\" is empty or has a space or \"+\"")
        }
        guard let decoded = StandardBase64.decode(bytes: rest[(space + 1)...]), decoded.count >= 5 else {
            throw TransparencyLogError(
                .malformedNote, "the signature by \(name) is not base64 of a key ID and a signature")
        }
        let keyID = decoded.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return NoteSignature(name: name, keyID: keyID, signature: Array(decoded.dropFirst(4)))
    }

    private static func lastBlankLine(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var index = bytes.count - 2
        while index >= 0 {
            if bytes[index] == 0x0A, bytes[index + 1] == 0x0A { return index }
            index -= 1
        }
        return nil
    }

    private static func hex2(_ value: UInt32) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(value >> 4 & 0xF)], digits[Int(value & 0xF)]], as: UTF8.self)
    }
}
