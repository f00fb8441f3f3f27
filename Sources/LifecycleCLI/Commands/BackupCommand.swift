import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// `lifecycle backup DEST`: a consistent copy of the SQLite store and its manifest (``StoreBackup``).
struct BackupCommand: LifecycleCommand {
    static let name = "backup"
    static let summary = "copy the SQLite store while serve runs, with a manifest a restore verifies"
    static let syntax = [CommandSyntax("backup", positionals: "DEST", count: 1...1, options: [.config, .logLevel])]
    static let details = """
        Copies the store of storage.url (sqlite:PATH) into the new file DEST with SQLite's online backup API:
        the copy is the database as of one commit, taken while serve goes on accepting notifications. Then
        writes DEST.manifest.json: the backup's id, the store's identity, when the copy started, the schema
        version and the SHA-256 and length of DEST. The copy is written as DEST.partial-PID, flushed and
        renamed; the manifest last, the same way, so a backup a crash cut short has no manifest and lifecycle
        restore refuses it. DEST must not exist.

        Before copying, a backup line is appended to the erasure journal (PATH-erasures.jsonl next to the
        store, created when missing): lifecycle restore re-applies every erasure the journal records, and
        refuses a backup the journal has no line for. Keep the journal on the machine (it is not in DEST);
        back up the master key file separately, never next to DEST.

        PostgreSQL (storage.url postgres://…) is refused: use pg_dump or a base backup (README, Backups).

        exit status: 0 written, 1 refused (PostgreSQL store), 2 could not run (DEST exists, store unreadable)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        guard let destination = try arguments.positionals(max: 1).first else {
            throw UsageError("name the backup file DEST", usage: syntax[0].usage)
        }
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        guard let database = configuration.storage.sqlitePath else {
            io.printError(
                "lifecycle backup: storage.url is \(configuration.storage.redactedURL), not SQLite; back PostgreSQL up with pg_dump or a base backup (README, Backups)"
            )
            return ExitStatus.negative
        }
        let manifest = try await StoreBackup.take(
            database: database, destination: destination,
            busyTimeoutMilliseconds: Int32(configuration.storage.busyTimeoutMilliseconds), clock: try io.clock())
        io.print(
            "\(destination): backup \(manifest.id) of store \(manifest.store) taken \(manifest.takenAt.iso8601), schema version \(manifest.schemaVersion), \(manifest.byteCount) bytes, sha256 \(manifest.sha256); manifest \(StoreBackup.manifestPath(of: destination))"
        )
        return ExitStatus.success
    }
}
