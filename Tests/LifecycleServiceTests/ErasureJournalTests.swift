import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleEngine

/// The erasure journal's file: created once with its store identity, appended line by line, and read back
/// with a line a crash cut short told apart from a damaged one.
@Suite("Erasure journal")
struct ErasureJournalTests {
    static let entry = ErasureJournalEntry(
        at: Instant(millisecondsSinceEpoch: 1_764_600_000_000), app: "shop",
        subject: "ps_00112233445566778899aabbccddeeff", job: 7, scopes: [.notifications, .appleTokens],
        account: nil)

    @Test("created once with one store id; lines appended after a torn one start on their own line")
    func appendAfterTornLine() throws {
        let directory = try TemporaryDirectory(prefix: "journal")
        let journal = ErasureJournal(database: directory.file("lifecycle.sqlite"))
        let store = try journal.open(at: Self.entry.at)
        #expect(try journal.open(at: Self.entry.at.adding(seconds: 5)) == store, "an existing journal stands")
        try journal.append(.backup(id: "bk_0123456789abcdef0123456789abcdef", at: Self.entry.at))
        // A crash in the middle of a write leaves a prefix without its newline.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"app":"shop","at":"2026-12-01T"#.utf8))
        try handle.close()
        try journal.append(.erasure(Self.entry))

        let contents = try journal.read()
        #expect(contents.store == store)
        #expect(contents.torn == 1 && contents.damaged.isEmpty)
        #expect(contents.erasures == [Self.entry])
        #expect(contents.backup(id: "bk_0123456789abcdef0123456789abcdef")?.number == 2)
    }

    @Test("a damaged line is reported with its number, not skipped")
    func damagedLine() {
        let text =
            ErasureJournalLine.opened(store: "st_00000000000000000000000000000000", at: Self.entry.at).text
            + "\n{\"kind\":\"erasure\",\"at\":\"2026-12-01T00:00:00Z\",\"app\":\"shop\",\"subject\":\"ps_1\",\"job\":1,\"scopes\":[\"photos\"]}\n"
            + ErasureJournalLine.erasure(Self.entry).text + "\n"
        let contents = ErasureJournal.parse(Array(text.utf8))
        #expect(contents.damaged.map(\.number) == [2])
        #expect(contents.damaged.first?.problem.contains("unknown scope") == true)
        #expect(contents.erasures == [Self.entry])
    }
}
