/// Text from configuration or from the network, made safe for a one-line message: printable ASCII only,
/// capped in length, quoted.
enum AppleText {
    static func quoted(_ value: String, limit: Int = 64) -> String {
        let cleaned = value.unicodeScalars.prefix(limit).map { scalar in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : "?"
        }
        return "\"" + String(cleaned) + (value.unicodeScalars.count > limit ? "…" : "") + "\""
    }
}
