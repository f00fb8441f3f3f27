import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// `lifecycle restore SRC`: puts a backup in place and re-applies the erasures since (``StoreRestore``).
struct RestoreCommand: LifecycleCommand {
    static let name = "restore"
    static let summary = "restore a backup of the SQLite store and re-apply every erasure since it was taken"
    static let syntax = [CommandSyntax("restore", positionals: "SRC", count: 1...1, options: [.config, .logLevel])]
    static let details = """
        Replaces the store of storage.url (sqlite:PATH) with the backup SRC taken by lifecycle backup, then
        re-applies every erasure recorded in the erasure journal (PATH-erasures.jsonl): the data keys the
        erasure destroyed are destroyed again, the sealed columns cleared, and the account put back to the
        state it had when erased (its tombstone), so no subject erased after the backup comes back (CCPA
        regulations §7022(d)). The journal names subjects by their keyed pseudonym, so pseudonymKeyFile must
        be the one the service used. Re-applying is idempotent: an erasure the backup already holds changes
        nothing, and a data key created after the erasure (a re-link) is left alone.

        It refuses, changing nothing, and names what is missing when it cannot prove that: SRC.manifest.json
        missing or invalid, SRC's SHA-256 not the manifest's, a schema newer than this build, a serve holding
        the store (stop every serve first), no journal, a journal of another store or begun after the backup,
        a journal without the backup's line (truncated or replaced since), or a journal line that does not
        parse. A line a crash cut short is skipped: its erasure never committed.

        While it runs, PATH.restore-pending exists and serve refuses to start; if it is interrupted, run it
        again. The master key file must still hold the master key the backup's data keys are wrapped by.

        exit status: 0 restored, 1 refused (one line naming what is missing), 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        guard let source = try arguments.positionals(max: 1).first else {
            throw UsageError("name the backup file SRC", usage: syntax[0].usage)
        }
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        guard let database = configuration.storage.sqlitePath else {
            io.printError(
                "lifecycle restore: storage.url is \(configuration.storage.redactedURL), not SQLite; restore PostgreSQL with pg_restore or from a base backup (README, Backups)"
            )
            return ExitStatus.negative
        }
        let key: [UInt8]
        do {
            guard let read = try SecretFile.read(path: configuration.pseudonymKeyFile, variable: "", environment: [:])
            else { throw SecretFile.Failure(description: "no pseudonym key") }
            key = read
        } catch {
            io.printError(
                "lifecycle restore: pseudonymKeyFile \(configuration.pseudonymKeyFile) cannot be read; the journal's subjects are matched by pseudonyms under that key"
            )
            return ExitStatus.negative
        }
        do {
            let outcome = try await StoreRestore.run(
                source: source, database: database, pseudonymizer: KeyedSubjectPseudonymizer(key: key),
                busyTimeoutMilliseconds: Int32(configuration.storage.busyTimeoutMilliseconds))
            io.print(
                "\(database): restored backup \(outcome.manifest.id) taken \(outcome.manifest.takenAt.iso8601); "
                    + "re-applied \(outcome.entries) journalled erasures (\(outcome.matched) of subjects in the backup): "
                    + "\(outcome.keysDestroyed) data keys destroyed, \(outcome.rowsCleared) rows cleared, "
                    + "\(outcome.accountsRestored) accounts put back to their tombstone"
                    + (outcome.tornLines > 0 ? "; \(outcome.tornLines) torn journal lines skipped" : ""))
            return ExitStatus.success
        } catch let refusal as StoreRestore.Refusal {
            io.printError("lifecycle restore: \(refusal.description)")
            return ExitStatus.negative
        }
    }
}
