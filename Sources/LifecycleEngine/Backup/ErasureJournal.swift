import Foundation
import Glibc
import LifecycleCore
import LifecycleCrypto

/// The erasure journal of a SQLite store: `<database>-erasures.jsonl`, next to the store but never inside
/// it, so a backup of the store does not contain it and a restore can learn from it what happened since the
/// backup (``ErasureJournalLine``). Append-only: each line is written with `O_APPEND` in one `write(2)` and
/// fsynced before the caller goes on, and the `self` erasure step appends its line *before* its store commit.
/// A crash between the two leaves a line for an erasure the store has not committed yet; the job's step is
/// retried (its lease runs out) and commits it, and a restore re-applies the line meanwhile, which destroys
/// nothing that erasure would not have destroyed. The other order could lose an erasure, this one cannot.
public struct ErasureJournal: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The journal of the SQLite database at `database`.
    public init(database: String) {
        self.init(path: database + "-erasures.jsonl")
    }

    /// The journal of a SQLite store; nil for PostgreSQL, whose backups are the operator's (README).
    public init?(storage: StorageConfiguration) {
        guard let database = storage.sqlitePath else { return nil }
        self.init(database: database)
    }

    public var exists: Bool { DurableFile.exists(path) }

    /// Creates the journal with its ``ErasureJournalLine/opened(store:at:)`` line when missing — written to a
    /// temporary file and linked into place, so no reader ever sees a journal without its first line — and
    /// returns the store's identity from that line.
    @discardableResult
    public func open(at instant: Instant) throws -> String {
        try create(at: instant)
        let contents = try read()
        guard let store = contents.store else {
            throw DurableFile.Failure(
                description: "\(path): the erasure journal does not begin with its opened line; it was damaged")
        }
        return store
    }

    /// Creates the journal when missing, without reading it.
    public func create(at instant: Instant) throws {
        if !exists {
            let store = "st_" + Hex.encode(SecureRandom.bytes(count: 16))
            let temporary = path + ".new-\(getpid())"
            let text = ErasureJournalLine.opened(store: store, at: instant).text + "\n"
            try DurableFile.write(Array(text.utf8), to: temporary)
            // link(2) fails when another process created the journal meanwhile: its line stands.
            let linked = link(temporary, path) == 0
            unlink(temporary)
            if linked { try DurableFile.syncDirectory(of: path) }
        }
    }

    /// Appends one line and flushes it to disk before returning. A line left without its newline by a crash is
    /// ended first, so the next line starts on a line of its own.
    public func append(_ line: ErasureJournalLine) throws {
        let descriptor = Glibc.open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DurableFile.failure(path, "open the erasure journal (lifecycle creates it with the store)")
        }
        defer { close(descriptor) }
        var bytes = Array((line.text + "\n").utf8)
        if !endsWithNewline(descriptor) { bytes.insert(UInt8(ascii: "\n"), at: 0) }
        guard DurableFile.writeAll(descriptor, bytes) else { throw DurableFile.failure(path, "append to it") }
        guard fsync(descriptor) == 0 else { throw DurableFile.failure(path, "flush it to disk") }
    }

    private func endsWithNewline(_ descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return true }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, info.st_size - 1) == 1 ? last == UInt8(ascii: "\n") : true
    }

    /// What the journal holds, as a restore judges it.
    public struct Contents: Sendable {
        /// The store id of the first line, when the first line is an opened line.
        public var store: String?
        public var openedAt: Instant?
        /// Every line that parsed, with its 1-based line number.
        public var lines: [(number: Int, line: ErasureJournalLine)]
        /// Lines that did not parse, with their number and why.
        public var damaged: [(number: Int, problem: String)]
        /// Lines a crash cut short (valid JSON up to the end of the line, then nothing): the erasure they
        /// announced never committed, since a commit waits for the flush of its line.
        public var torn: Int

        public var erasures: [ErasureJournalEntry] {
            lines.compactMap { if case .erasure(let entry) = $0.line { entry } else { nil } }
        }

        public func backup(id: String) -> (number: Int, at: Instant)? {
            for (number, line) in lines {
                if case .backup(let found, let at) = line, found == id { return (number, at) }
            }
            return nil
        }
    }

    /// Reads and parses every line. Throws only when the file cannot be read.
    public func read() throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DurableFile.failure(path, "read the erasure journal")
        }
        return Self.parse(Array(data))
    }

    /// Parses a journal's bytes. Never traps.
    public static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents(store: nil, openedAt: nil, lines: [], damaged: [], torn: 0)
        let rows = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, row) in rows.enumerated() where !row.isEmpty {
            let number = index + 1
            switch ErasureJournalLine.parse(row) {
            case .success(let line):
                if contents.lines.isEmpty, contents.damaged.isEmpty, case .opened(let store, let at) = line {
                    contents.store = store
                    contents.openedAt = at
                }
                contents.lines.append((number, line))
            case .failure(let error):
                if isTorn(row) {
                    contents.torn += 1
                } else {
                    contents.damaged.append((number, error.description))
                }
            }
        }
        return contents
    }

    /// A prefix of a JSON object cut by a crash: the parser ran out of input rather than meeting a wrong byte.
    static func isTorn(_ row: ArraySlice<UInt8>) -> Bool {
        guard row.first == UInt8(ascii: "{") else { return false }
        do {
            _ = try JSONValue.parse(Array(row))
            return false
        } catch {
            return error.offset >= row.count
        }
    }
}
