import LifecycleCore
import Testing

/// Outside input quoted in an error stays one bounded line, cut between scalars.
@Suite("Quoting outside input in an error")
struct QuotedForErrorTests {
    @Test("a long value of three-byte characters is cut to the byte bound at a scalar boundary, with its length")
    func longValue() {
        let value = String(repeating: "\u{3333}", count: 400) + "\n"
        let quoted = value.quotedForError(maxBytes: 200)
        #expect(!quoted.contains("\n"))
        #expect(quoted.utf8.count <= 200 + "… (1201 bytes)".utf8.count)
        #expect(quoted.hasPrefix(String(repeating: "\u{3333}", count: 66)))
        #expect(quoted.hasSuffix("… (1201 bytes)"))
    }

    @Test("a short value is only escaped")
    func shortValue() {
        #expect("https://idp.example/\r".quotedForError() == "https://idp.example/\\u{D}")
    }
}
