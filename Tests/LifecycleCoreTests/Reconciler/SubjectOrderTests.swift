import Testing

@testable import LifecycleCore

@Suite("Subject order: UTF-8 byte order, as a database's binary collation")
struct SubjectOrderTests {
    /// Prefixes, equal strings, case, digits, multi-byte scalars, and "é" precomposed (0xC3 0xA9) against
    /// "e" + combining acute (0x65 0xCC 0x81): canonically equal for Swift's `<`, different bytes for a database.
    static let subjects = [
        "", "0", "00", "001.a", "001.a1", "001.Z", "001.z", "001.\u{E9}", "001.e\u{301}", "000123.abc.0001",
        "000123.abc.0002", "000123.abd", "\u{1F600}", "a\u{1F600}", "zz",
    ]

    @Test("agrees with comparing the UTF-8 bytes one by one, for every pair")
    func agreesWithBytes() {
        for lhs in Self.subjects {
            for rhs in Self.subjects {
                #expect(
                    SubjectOrder.precedes(lhs, rhs) == Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8)),
                    "\(lhs.debugDescription) vs \(rhs.debugDescription)")
            }
        }
    }

    @Test("a string never precedes itself, and a prefix precedes what extends it")
    func strictOrder() {
        #expect(!SubjectOrder.precedes("001.a", "001.a"))
        #expect(SubjectOrder.precedes("001.a", "001.a1"))
        #expect(!SubjectOrder.precedes("001.a1", "001.a"))
        #expect(SubjectOrder.precedes("001.e\u{301}", "001.\u{E9}"))
    }
}
