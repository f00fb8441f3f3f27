/// The `webhook-id` of one outbox message (Standard Webhooks, "webhook-id": unique per message, the same on
/// every retry of it, what receivers de-duplicate on): `msg_` and a UUID version 7 (RFC 9562 §5.7) — the
/// message's creation time in Unix milliseconds (48 bits), the version and variant, and 74 random bits. Ids
/// sort by creation time, and two stores, two instances or a store rebuilt from scratch never issue the same
/// one, where a row number would start again at `msg_1`. Fixed when the message is written, so a retry, a
/// takeover by another instance or a manual retry sends the same id.
public enum WebhookMessageID {
    public static let prefix = "msg_"
    /// Random bytes ``make(at:random:)`` takes: 74 bits are used.
    public static let randomByteCount = 10

    /// - Parameter random: ``randomByteCount`` bytes from a cryptographically secure source.
    public static func make(at instant: Instant, random: [UInt8]) -> String {
        precondition(random.count >= randomByteCount, "a message id needs \(randomByteCount) random bytes")
        let milliseconds = UInt64(max(0, instant.millisecondsSinceEpoch)) & 0xFFFF_FFFF_FFFF
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = 0x70 | (random[0] & 0x0F)  // version 7
        bytes[7] = random[1]
        bytes[8] = 0x80 | (random[2] & 0x3F)  // variant 0b10
        for index in 9..<16 { bytes[index] = random[index - 6] }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return prefix + String(decoding: text, as: UTF8.self)
    }
}
