/// The key name rules of c2sp.org/signed-note §Format: non-empty, and no Unicode space or plus (U+002B), so a
/// name never runs into the base64 that follows it or into the `+` fields of a verifier key.
enum NoteKeyName {
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains { $0 == "+" || $0.properties.isWhitespace }
    }
}
