import Foundation
import Glibc
import LifecycleCore
import LifecycleCrypto
import LifecycleStore

/// `lifecycle restore SRC`: puts a backup taken by ``StoreBackup`` in place of the SQLite store and re-applies
/// every erasure the erasure journal records, so no subject erased since the backup comes back (CCPA
/// regulations §7022(d)). It proves first, and changes nothing until it has:
/// - the manifest exists, parses, and the copy's SHA-256 and length match it;
/// - the copy's schema is one this build understands;
/// - no `serve` holds the store (``SQLiteInstanceLock``; the lock is held exclusively until the end);
/// - the journal exists, begins with the opened line of the store the backup was taken from, holds the
///   backup's own line (so it was neither truncated before it nor replaced since), and every line parses.
///
/// Then a marker `<database>.restore-pending` is written, the copy replaces the database (its old `-wal` and
/// `-shm` removed first, so no frame of the old database is applied to the copy), every journal entry is
/// re-applied (``StoreWriter/reapplyErasure(app:subject:scopes:erasedAt:account:)``: idempotent, so every
/// entry is applied, also those before the backup's line, whose commit may have come after the copy started),
/// the log is checkpointed and truncated, and the marker removed. `serve` refuses to start while the marker
/// exists; running the restore again finishes an interrupted one.
public enum StoreRestore {
    /// Why a restore refused: one line naming what is missing or wrong.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    public struct Outcome: Sendable {
        public var manifest: BackupManifest
        /// Erasure entries in the journal, and those whose subject the copy holds.
        public var entries: Int
        public var matched: Int
        public var keysDestroyed: Int
        public var rowsCleared: Int
        public var accountsRestored: Int
        public var tornLines: Int
    }

    public static func markerPath(database: String) -> String { database + ".restore-pending" }

    /// The line `serve` refuses to start with while a restore has not finished, nil when none is pending.
    public static func pendingRestore(database: String) -> String? {
        let marker = markerPath(database: database)
        guard DurableFile.exists(marker) else { return nil }
        let source =
            FileManager.default.contents(atPath: marker).map { String(decoding: $0, as: UTF8.self) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        return
            "\(database): a restore from \(source) has not finished re-applying erasures (\(marker)); run lifecycle restore \(source) again"
    }

    public static func run(
        source: String, database: String, pseudonymizer: KeyedSubjectPseudonymizer,
        busyTimeoutMilliseconds: Int32
    ) async throws -> Outcome {
        let manifest = try verify(source: source)
        guard let lock = try SQLiteInstanceLock.holdExclusive(database: database) else {
            throw Refusal(
                description:
                    "\(database): a lifecycle serve holds the store (\(SQLiteInstanceLock.path(database: database))); stop every serve on it first"
            )
        }
        defer { SQLiteInstanceLock.release(lock) }
        let journal = ErasureJournal(database: database)
        let contents = try coverage(journal: journal, manifest: manifest)

        let marker = markerPath(database: database)
        try DurableFile.write(Array((source + "\n").utf8), to: marker)
        let incoming = database + ".restoring-\(getpid())"
        try DurableFile.remove(incoming)
        try DurableFile.copy(source, to: incoming)
        guard let copied = SHA256.fileDigest(path: incoming), copied.hex == manifest.sha256 else {
            unlink(incoming)
            throw Refusal(description: "\(source): the copy changed while it was read; try again")
        }
        for suffix in ["-wal", "-shm"] { try DurableFile.remove(database + suffix) }
        try DurableFile.publish(incoming, as: database)

        let store = try await SQLiteStore.open(
            path: database, configuration: SQLiteStoreConfiguration(busyTimeoutMilliseconds: busyTimeoutMilliseconds))
        var outcome = Outcome(
            manifest: manifest, entries: 0, matched: 0, keysDestroyed: 0, rowsCleared: 0, accountsRestored: 0,
            tornLines: contents.torn)
        do {
            try await reapply(contents.erasures, to: store, pseudonymizer: pseudonymizer, outcome: &outcome)
            let removal = try await store.removeRemnants()
            guard removal.complete else {
                throw Refusal(description: "\(database): \(removal.description); run lifecycle restore \(source) again")
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        try DurableFile.remove(marker)
        try DurableFile.syncDirectory(of: marker)
        return outcome
    }

    /// The manifest of `source`, once the copy matches it.
    static func verify(source: String) throws -> BackupManifest {
        let manifestPath = StoreBackup.manifestPath(of: source)
        guard DurableFile.exists(source) else { throw Refusal(description: "\(source): no such backup file") }
        guard let bytes = FileManager.default.contents(atPath: manifestPath) else {
            throw Refusal(
                description: "\(manifestPath): missing; the backup did not finish or was not taken by lifecycle backup")
        }
        let manifest: BackupManifest
        switch BackupManifest.parse(Array(bytes)) {
        case .success(let parsed): manifest = parsed
        case .failure(let error): throw Refusal(description: "\(manifestPath) \(error.description)")
        }
        guard let digest = SHA256.fileDigest(path: source) else {
            throw Refusal(description: "\(source): cannot read the backup")
        }
        guard digest.hex == manifest.sha256, digest.byteCount == manifest.byteCount else {
            throw Refusal(
                description:
                    "\(source): SHA-256 \(digest.hex) (\(digest.byteCount) bytes) does not match the manifest's \(manifest.sha256) (\(manifest.byteCount) bytes); the copy is damaged"
            )
        }
        guard manifest.schemaVersion <= SQLiteStore.schemaVersion else {
            throw Refusal(
                description:
                    "\(source): schema version \(manifest.schemaVersion) is newer than this build's \(SQLiteStore.schemaVersion); restore with the build that took it"
            )
        }
        return manifest
    }

    /// The journal's contents once they prove every erasure since the backup is recorded.
    static func coverage(journal: ErasureJournal, manifest: BackupManifest) throws -> ErasureJournal.Contents {
        guard journal.exists else {
            throw Refusal(
                description:
                    "\(journal.path): no erasure journal; without it the erasures since the backup (\(manifest.takenAt.iso8601)) cannot be re-applied"
            )
        }
        let contents = try journal.read()
        guard let store = contents.store, let openedAt = contents.openedAt else {
            throw Refusal(
                description: "\(journal.path): does not begin with its opened line; it was truncated or damaged")
        }
        guard store == manifest.store else {
            throw Refusal(
                description:
                    "\(journal.path): the journal of store \(store), but the backup was taken from store \(manifest.store)"
            )
        }
        guard openedAt <= manifest.takenAt else {
            throw Refusal(
                description:
                    "\(journal.path): begins at \(openedAt.iso8601), after the backup was taken (\(manifest.takenAt.iso8601))"
            )
        }
        guard contents.backup(id: manifest.id) != nil else {
            throw Refusal(
                description:
                    "\(journal.path): no line for backup \(manifest.id) (taken \(manifest.takenAt.iso8601)); the journal was truncated or replaced since"
            )
        }
        if let first = contents.damaged.first {
            throw Refusal(
                description:
                    "\(journal.path) line \(first.number) \(first.problem); an erasure it records cannot be re-applied")
        }
        return contents
    }

    /// Matches each entry's pseudonym to a subject of the copy (the journal holds no `sub`) and re-applies it.
    static func reapply(
        _ entries: [ErasureJournalEntry], to store: SQLiteStore, pseudonymizer: KeyedSubjectPseudonymizer,
        outcome: inout Outcome
    ) async throws {
        outcome.entries = entries.count
        var subjects: [String: [String: String]] = [:]
        for app in Set(entries.map(\.app)).sorted() {
            var known: [String: String] = [:]
            var after: String?
            while true {
                let page = try await store.read { [after] reader in
                    try reader.accounts(app: app, afterSubject: after, limit: 1000).map(\.subject)
                }
                for subject in page { known[pseudonymizer.pseudonym(app: app, subject: subject)] = subject }
                guard let last = page.last, page.count == 1000 else { break }
                after = last
            }
            subjects[app] = known
        }
        for entry in entries {
            // A subject the copy does not hold came after the backup: nothing of theirs is in it.
            guard let subject = subjects[entry.app]?[entry.subject] else { continue }
            outcome.matched += 1
            let result = try await store.write { writer in
                try writer.reapplyErasure(
                    app: entry.app, subject: subject, scopes: entry.scopes, erasedAt: entry.at, account: entry.account)
            }
            outcome.keysDestroyed += result.keysDestroyed
            outcome.rowsCleared += result.rowsCleared
            outcome.accountsRestored += result.accountRestored ? 1 : 0
        }
    }
}
