import LifecycleCore
import Testing

@Suite("webhook-id as msg_ and a UUID version 7")
struct WebhookMessageIDTests {
    @Test(
        "the creation time, version 7 and the RFC 9562 variant are where §5.7 puts them; the rest is the random bytes")
    func layout() {
        let instant = Instant(millisecondsSinceEpoch: 0x0190_F5E6_1A2B)
        let id = WebhookMessageID.make(
            at: instant, random: [0xFF, 0x11, 0xFF, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])
        #expect(id == "msg_0190f5e6-1a2b-7f11-bf22-334455667788")
    }

    @Test("ids sort by creation time, and the same instant with other random bytes gives another id")
    func ordering() {
        let bytes: [UInt8] = Array(repeating: 0, count: 10)
        let early = WebhookMessageID.make(at: Instant(millisecondsSinceEpoch: 1_764_400_000_000), random: bytes)
        let late = WebhookMessageID.make(at: Instant(millisecondsSinceEpoch: 1_764_400_000_001), random: bytes)
        #expect(early < late)
        var other = bytes
        other[9] = 1
        #expect(WebhookMessageID.make(at: Instant(millisecondsSinceEpoch: 1_764_400_000_000), random: other) != early)
    }
}
