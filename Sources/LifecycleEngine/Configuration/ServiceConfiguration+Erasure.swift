import LifecycleCore
import LifecycleSQL
import LifecycleStore

/// The erasure parts of `lifecycle.json` (DESIGN.md §7): `policiesDirectory`, the `erasure` runner settings,
/// and per app `policy`, `targets` and `categories`. A mapping that does not validate stops start-up with one
/// line naming the file, the field and the fix, because a category with nowhere to erase it would silently
/// never be erased.
extension ServiceConfiguration {
    /// The keys an app object may carry for erasure, added to the app reader's allowed keys.
    package static let appErasureKeys = ["policy", "targets", "categories"]

    /// Reads an app's `policy`, `targets` and `categories`; nil when the app has none of them (no erasure).
    static func parseAppErasure(
        _ app: inout ConfigurationReader, hasWebhook: Bool, resolve: (String) -> String
    ) throws(ConfigurationError) -> AppErasureConfiguration? {
        guard appErasureKeys.contains(where: app.has) else { return nil }
        let policyID = try app.string("policy", default: "default", fix: "the id of a policy file, e.g. \"default\"")
        var targets: [String: ErasureTarget] = [:]
        var retention: [String: Int] = [:]
        for (name, value) in try app.map("targets") ?? [:] {
            var reader = try ConfigurationReader(file: app.file, path: app.field("targets") + "." + name, value: value)
            guard name != ErasurePlanner.selfTarget else {
                throw app.error(
                    "targets.\(name)", "\"self\" is built in", fix: "remove it; map categories to \"self\" directly")
            }
            try reader.allow([
                "type", "path", "url", "statements", "verify", "secureDelete", "vacuum", "backupRetentionDays",
            ])
            let type = try reader.string("type", fix: "\"webhook\", \"sqlite\" or \"postgres\"")
            if let days = try reader.optionalInteger(
                "backupRetentionDays", range: 0...36_600, fix: "days the operator keeps backups of this target")
            {
                retention[name] = Int(days)
            }
            switch type {
            case "webhook":
                guard hasWebhook else {
                    throw reader.error(
                        "type", "a webhook target needs the app's webhook", fix: "add \"webhook\": {\"url\": ...}")
                }
                targets[name] = .webhook
            case "sqlite":
                guard let path = try reader.string("path", fix: "the app database file") else {
                    throw reader.error("path", "missing", fix: "the path of the app's SQLite file")
                }
                let (statements, verify) = try parseErasureSQL(&reader)
                let secureDelete = try reader.bool("secureDelete", default: true)
                targets[name] = .sqlite(
                    path: resolve(path), statements: statements, verify: verify, secureDelete: secureDelete)
            case "postgres":
                guard let url = try reader.string("url", fix: "the app database's postgres:// URL"),
                    url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
                else {
                    throw reader.error(
                        "url", "missing or not a postgres:// URL",
                        fix: "e.g. postgres://eraser@db.internal/app?sslmode=verify-full (password in PGPASSFILE)")
                }
                let (statements, verify) = try parseErasureSQL(&reader)
                let vacuum = try reader.strings("vacuum", fix: "table names, e.g. [\"users\", \"comments\"]") ?? []
                for (index, table) in vacuum.enumerated() where !ExternalPostgresDatabase.isTableName(table) {
                    throw reader.error(
                        "vacuum[\(index)]", "\"\(table)\" is not a table name",
                        fix: "letters, digits and _, optionally schema.table")
                }
                targets[name] = .postgres(url: url, statements: statements, verify: verify, vacuum: vacuum)
            default:
                throw reader.error(
                    "type", "missing or unknown target type", fix: "use \"webhook\", \"sqlite\" or \"postgres\"")
            }
            try reader.finish()
        }
        var categories: [String: [String]] = [:]
        for (name, value) in try app.map("categories") ?? [:] {
            guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count
            else {
                throw app.error(
                    "categories.\(name)", "expected an array of target names", fix: "e.g. [\"app-db\", \"self\"]")
            }
            categories[name] = names
        }
        return AppErasureConfiguration(
            policyID: policyID, targets: targets, categories: categories, backupRetentionDays: retention)
    }

    /// The `statements` and `verify` of an SQL target (`sqlite`, `postgres`): every one binds the user as
    /// `:sub`, so no statement can carry a literal value.
    static func parseErasureSQL(
        _ reader: inout ConfigurationReader
    ) throws(ConfigurationError) -> (statements: [String], verify: String?) {
        guard let statements = try reader.strings("statements", fix: "SQL statements using :sub"), !statements.isEmpty
        else {
            throw reader.error(
                "statements", "missing or empty", fix: "e.g. [\"DELETE FROM users WHERE apple_sub = :sub\"]")
        }
        let namesUser = { (sql: String) in sql.contains(":sub") || sql.contains(":provider_sub") }
        for (index, statement) in statements.enumerated() where !namesUser(statement) {
            throw reader.error(
                "statements[\(index)]", "does not use the named parameter :sub",
                fix: "bind the user with :sub (or :provider_sub), never a literal value")
        }
        let verify = try reader.string("verify", fix: "a query counting the user's remaining rows")
        if let verify, !namesUser(verify) {
            throw reader.error(
                "verify", "does not use the named parameter :sub",
                fix: "e.g. SELECT count(*) FROM users WHERE apple_sub = :sub")
        }
        return (statements, verify)
    }

    /// Reads the top-level `erasure` object (runner settings), all optional.
    static func parseErasureRunner(_ root: inout ConfigurationReader) throws(ConfigurationError)
        -> ErasureRunnerConfiguration
    {
        var reader = try root.objectOrEmpty("erasure")
        try reader.allow([
            "maxAttempts", "baseDelayMilliseconds", "maxDelayMilliseconds", "leaseSeconds", "pollMilliseconds",
            "batchSize", "timeoutMilliseconds", "busyTimeoutMilliseconds", "callbackTimeoutSeconds", "runInServe",
            "backupRetentionDays",
        ])
        var runner = ErasureRunnerConfiguration()
        runner.runInServe = try reader.bool("runInServe", default: true)
        runner.maxAttempts = Int(try reader.integer("maxAttempts", default: 8, range: 1...100, fix: "a count"))
        runner.baseDelayMilliseconds = Int(
            try reader.integer("baseDelayMilliseconds", default: 60_000, range: 1...86_400_000, fix: "milliseconds"))
        runner.maxDelayMilliseconds = Int(
            try reader.integer(
                "maxDelayMilliseconds", default: 21_600_000, range: 1...604_800_000, fix: "milliseconds"))
        runner.leaseSeconds = Int(try reader.integer("leaseSeconds", default: 300, range: 1...86_400, fix: "seconds"))
        runner.pollMilliseconds = Int(
            try reader.integer("pollMilliseconds", default: 10_000, range: 10...3_600_000, fix: "milliseconds"))
        runner.batchSize = Int(try reader.integer("batchSize", default: 16, range: 1...1000, fix: "a count"))
        runner.timeoutMilliseconds = Int(
            try reader.integer("timeoutMilliseconds", default: 10_000, range: 100...300_000, fix: "milliseconds"))
        runner.busyTimeoutMilliseconds = Int(
            try reader.integer("busyTimeoutMilliseconds", default: 5_000, range: 0...600_000, fix: "milliseconds"))
        runner.callbackTimeoutSeconds = Int(
            try reader.integer("callbackTimeoutSeconds", default: 604_800, range: 1...31_622_400, fix: "seconds"))
        runner.backupRetentionDays = try reader.optionalInteger(
            "backupRetentionDays", range: 0...36_600, fix: "days the operator keeps backups of the store and targets"
        ).map { Int($0) }
        try reader.finish()
        return runner
    }

    /// Loads the policies the apps name and checks every mapping against its policy. Returns the policies by
    /// id (only those some app uses; the directory is not read when no app maps erasure).
    static func loadPolicies(
        apps: [AppConfiguration], directory: String, file: String
    ) throws(ConfigurationError) -> [String: ErasurePolicy] {
        guard apps.contains(where: { $0.erasure != nil }) else { return [:] }
        let library = PolicyLibrary.load(directory: directory)
        var used: [String: ErasurePolicy] = [:]
        for (index, app) in apps.enumerated() {
            guard let erasure = app.erasure else { continue }
            guard let policy = library.policies[erasure.policyID] else {
                // A broken file stops start-up only when an app needs it; its own line says what is wrong.
                let own = library.brokenFiles[erasure.policyID].flatMap { file in
                    library.problems.first { $0.hasPrefix(file + ": ") }
                }
                if let problem = own ?? library.problems.first {
                    throw ConfigurationError(
                        file: file, field: "apps[\(index)].policy",
                        problem: "policy \"\(erasure.policyID)\" did not load: \(problem)", fix: "")
                }
                throw ConfigurationError(
                    file: file, field: "apps[\(index)].policy",
                    problem: "no policy with id \"\(erasure.policyID)\" in \(directory)",
                    fix: "use one of: \(library.policies.keys.sorted().joined(separator: ", "))")
            }
            let lines = ErasurePlanner.missingMappings(
                policy: policy, categories: erasure.categories, knownTargets: Set(erasure.targets.keys))
            if let line = lines.first {
                let parts = line.components(separatedBy: "; fix: ")
                throw ConfigurationError(
                    file: file, field: "apps[\(index)].categories", problem: parts[0],
                    fix: parts.count > 1 ? parts[1] : "")
            }
            used[policy.id] = policy
        }
        return used
    }
}
