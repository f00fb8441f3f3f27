import LifecycleEngine
import LifecycleStore

/// `lifecycle migrate`: create or upgrade the database schema, and nothing else.
struct MigrateCommand: LifecycleCommand {
    static let name = "migrate"
    static let summary = "create or upgrade the database schema"
    static let syntax = [CommandSyntax("migrate", options: [.config, .logLevel])]
    static let details = """
        Opens the configured store and applies every pending schema step, each in its own transaction, then
        attaches the master key (secrets.masterKeyFile, created when missing, or LIFECYCLE_MASTER_KEY) and
        seals the relay e-mails and raw JWS an older release kept in the clear: each row is sealed under its
        subject's data key and its clear-text columns set to NULL, then the database is rewritten (SQLite
        VACUUM, PostgreSQL VACUUM FULL of the inbox, which locks it meanwhile) so no clear-text byte stays in
        free space. `serve` does the same at start-up; run this separately to upgrade before rolling out new
        instances. A database written by a newer build is refused and left untouched.

        exit status: 0 up to date, 2 could not open or migrate
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
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
}
