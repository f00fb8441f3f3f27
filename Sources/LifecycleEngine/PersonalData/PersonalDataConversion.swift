import LifecycleCore
import LifecycleStore

/// The one-time upgrade of a store written by a release that kept the relay e-mail and the raw JWS in the
/// clear: each such inbox row gets its values sealed under its subject's data key (made now when the subject
/// has none) and its clear-text columns set to NULL, batch after batch in id order; then the whole database
/// is rewritten (``Store/compactAfterConversion()``: SQLite `VACUUM`, PostgreSQL `VACUUM FULL` of the inbox),
/// because the older release also left clear-text bytes in free space (its erasure nulled columns without
/// `secure_delete`), and the conversion is recorded so it never runs again. A crash part-way leaves some rows
/// sealed and some not; the next start goes on from where it stopped.
///
/// A subject whose data the older release already erased has NULL columns and is not touched; a deleted
/// subject whose erasure was still due gets a key like anyone else, and its `self` step destroys it.
struct PersonalDataConversion {
    static let name = "sealed-personal-values"
    /// Rows sealed per write transaction.
    static let batchSize = 256

    var store: any Store
    var vault: SubjectKeyVault
    var log: EventLog
    var clock: any LifecycleClock

    /// Does nothing (one query) once the conversion is recorded.
    func run() async throws {
        if try await store.read({ try $0.conversionDone(Self.name) }) { return }
        var after: Int64 = 0
        var sealed = 0
        while true {
            let batch = try await store.read { [after] in
                try $0.plaintextNotificationValues(afterID: after, limit: Self.batchSize)
            }
            guard let last = batch.last else { break }
            let now = clock.now()
            var candidates: [String: SubjectKeyVault.Candidate] = [:]
            for row in batch where candidates[row.app + "\u{0}" + row.subject] == nil {
                candidates[row.app + "\u{0}" + row.subject] = try vault.candidate(
                    app: row.app, subject: row.subject, scope: .notifications, at: now)
            }
            let (vault, keyed) = (self.vault, candidates)
            sealed += try await store.write { writer in
                var count = 0
                for row in batch {
                    guard let candidate = keyed[row.app + "\u{0}" + row.subject] else { continue }
                    let dataKey = try vault.sealingKey(for: candidate, in: writer)
                    func seal(_ text: String?, _ column: SealedColumn) throws -> [UInt8]? {
                        guard let text, let dataKey else { return nil }
                        return try vault.seal(
                            Array(text.utf8), column: column, app: row.app, subject: row.subject, rowKey: row.jti,
                            dataKey: dataKey)
                    }
                    try writer.sealPlaintextNotification(
                        id: row.id, sealedEmail: try seal(row.email, .notificationEmail),
                        sealedRawJWS: try seal(row.rawJWS, .notificationToken))
                    count += 1
                }
                return count
            }
            after = last.id
        }
        let removal = try await store.compactAfterConversion()
        let now = clock.now()
        try await store.write { writer in try writer.recordConversion(Self.name, at: now) }
        log.log(
            .info, "store.values_sealed",
            [
                ("rows", .integer(Int64(sealed))), ("how", .string(removal.description)),
                ("complete", .bool(removal.complete)),
            ])
    }
}
