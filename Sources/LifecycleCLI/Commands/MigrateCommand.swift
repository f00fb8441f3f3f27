import LifecycleEngine
import LifecycleStore

/// `lifecycle migrate`: create or upgrade the database schema, and nothing else; `--check` only says whether
/// that is needed.
struct MigrateCommand: LifecycleCommand {
    static let name = "migrate"
    static let summary = "create or upgrade the database schema"
    static let syntax = [CommandSyntax("migrate", options: [.flag("--check"), .config, .logLevel])]
    static let details = """
        Opens the configured store and applies every pending schema step, each in its own transaction, then
        attaches the master key (secrets.masterKeyFile, created when missing, or LIFECYCLE_MASTER_KEY) and
        seals the relay e-mails and raw JWS an older release kept in the clear: each row is sealed under its
        subject's data key and its clear-text columns set to NULL, then the database is rewritten (SQLite
        VACUUM, PostgreSQL VACUUM FULL of the inbox, which locks it meanwhile) so no clear-text byte stays in
        free space. `serve` does the same at start-up; run this separately to upgrade before rolling out new
        instances. A database written by a newer build is refused and left untouched.

        --check changes nothing (a missing SQLite file is not created, no key file is written): it prints one
        line with the database's schema version and this build's, and exits 1 when the database is behind
        (run lifecycle migrate, or let serve do it at start), 0 when it is current, 2 when a newer build wrote
        it (this build would refuse it) or it cannot be reached. For a deploy pipeline: check with the new
        build, back up, migrate, then start.

        exit status: 0 up to date, 1 behind (--check only), 2 could not open or migrate, or newer than this build
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let check = arguments.flag("--check")
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        if check { return try await self.check(configuration.storage, io: io) }
        let (store, vault, _, _) = try await ServiceContext.openStore(configuration, io: io)
        await store.close()
        let version =
            PostgresStore.accepts(url: configuration.storage.url)
            ? PostgresStore.schemaVersion : SQLiteStore.schemaVersion
        io.print(
            "\(configuration.storage.redactedURL): schema version \(version), personal values sealed under master key "
                + (vault.currentMasterKeyID ?? "?"))
        return ExitStatus.success
    }

    /// `--check`: the schema versions, read without changing anything.
    static func check(_ storage: StorageConfiguration, io: CommandIO) async throws -> Int32 {
        let status: SchemaStatus
        if PostgresStore.accepts(url: storage.url) {
            status = try await PostgresStore.schemaStatus(url: storage.url)
        } else if let path = storage.sqlitePath {
            status = try await SQLiteStore.schemaStatus(
                path: path, busyTimeoutMilliseconds: Int32(storage.busyTimeoutMilliseconds))
        } else {
            throw UsageError("storage.url must be sqlite:PATH or postgres://USER@HOST/DATABASE")
        }
        let versions = "schema version \(status.applied), this build's \(status.supported)"
        if status.isNewer {
            io.print("\(storage.redactedURL): \(versions): written by a newer build, which this one refuses")
            return ExitStatus.failure
        }
        if status.isBehind {
            io.print("\(storage.redactedURL): \(versions): behind, run lifecycle migrate")
            return ExitStatus.negative
        }
        io.print("\(storage.redactedURL): \(versions): current")
        return ExitStatus.success
    }
}
