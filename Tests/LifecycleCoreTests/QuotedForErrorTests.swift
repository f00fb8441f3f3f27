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

    @Test("one grapheme of 100,000 combining marks is cut by bytes, not kept whole as one Character")
    func combiningMarks() {
        let value = "a" + String(repeating: "\u{0301}", count: 100_000)
        #expect(value.count == 1)
        let quoted = value.quotedForError(maxBytes: 64)
        #expect(quoted.utf8.count <= 64 + "… (200001 bytes)".utf8.count)
        #expect(quoted.hasSuffix("… (200001 bytes)"))
    }

    @Test("the cut never falls inside an escape, and a megabyte of control characters stays within the bound")
    func escapesAreWhole() {
        #expect("\u{2028}\u{2028}".quotedForError(maxBytes: 10) == "\\u{2028}… (6 bytes)")
        #expect("\u{2028}".quotedForError(maxBytes: 8) == "\\u{2028}")
        let hostile = String(repeating: "\u{1}", count: 1 << 20)
        let quoted = hostile.quotedForError(maxBytes: 64)
        #expect(quoted == String(repeating: "\\u{1}", count: 12) + "… (1048576 bytes)")
    }
}
