import LifecycleStore

/// `lifecycle migrate`: create or upgrade the database schema, and nothing else.
struct MigrateCommand: LifecycleCommand {
    static let name = "migrate"
    static let summary = "create or upgrade the database schema"
    static let syntax = [CommandSyntax("migrate", options: [.config])]
    static let details = """
        Opens the configured store and applies every pending schema step, each in its own transaction.
        `serve` does the same at start-up; run this separately to upgrade before rolling out new instances.
        A database written by a newer build is refused and left untouched.

        exit status: 0 up to date, 2 could not open or migrate
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        try arguments.finish()
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let store = try await ServiceContext.openStore(configuration.storage)
        await store.close()
        let version =
            PostgresStore.accepts(url: configuration.storage.url)
            ? PostgresStore.schemaVersion : SQLiteStore.schemaVersion
        io.print("\(configuration.storage.redactedURL): schema version \(version)")
        return ExitStatus.success
    }
}
