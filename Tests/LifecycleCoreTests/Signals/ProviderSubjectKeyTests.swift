import LifecycleCore
import Testing

/// A provider account's store key reads back as what it was made of, whatever the identifier holds.
@Suite("Provider subject keys")
struct ProviderSubjectKeyTests {
    @Test(
        "a value that begins with a combining mark, or holds : and %, reads back from its key",
        arguments: ["\u{0617}", "\u{0301}abc", "a:b%c", "ü\u{0308}", "7375626A656374"])
    func roundTrip(value: String) throws {
        let subject = ProviderSubject(
            provider: "google", format: "iss_sub", values: ["https://accounts.google.com/", value])
        let key = subject.accountKey
        let read = try #require(ProviderSubject(accountKey: key), "\(key.unicodeScalars.map(\.value))")
        #expect(read == subject)
        #expect(read.values.last?.unicodeScalars.elementsEqual(value.unicodeScalars) == true)
    }
}
