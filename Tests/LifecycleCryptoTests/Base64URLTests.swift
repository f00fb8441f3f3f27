import Testing

@testable import LifecycleCrypto

/// base64url (RFC 4648 §5) as JWS segments use it: one spelling per byte string, so a token cannot be
/// re-spelt into a second one that verifies.
@Suite("base64url")
struct Base64URLTests {
    @Test("every byte string up to 5 bytes comes back from its encoding, with padding and without")
    func roundTrip() {
        var strings: [[UInt8]] = [[]]
        for length in 1...5 {
            for seed in 0..<64 {
                strings.append((0..<length).map { UInt8(truncatingIfNeeded: seed &* 37 &+ $0 &* 101) })
            }
        }
        strings.append([0xFF, 0xFE, 0xFD])
        for bytes in strings {
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(Base64URL.decode(text) == bytes, "\(text)")
            let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
            #expect(Base64URL.decode(padded) == bytes, "\(padded)")
        }
    }

    @Test("a character outside the alphabet, bits left over and a single character are refused")
    func refusals() {
        // "+" and "/" are the standard alphabet's; "AB" leaves 0001 over; one character is half a byte.
        for text in ["+w", "/w", "AB", "AAB", "A", "A=", "AA=", "AA===", "Zm9v!", "Zm 9v"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("_-8") == [0xFF, 0xEF])
    }
}
