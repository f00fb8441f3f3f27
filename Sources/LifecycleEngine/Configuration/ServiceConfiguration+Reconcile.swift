import Foundation

/// The reconciler parts of `lifecycle.json`: per app `records`, and the top-level `reconcile` section.
extension ServiceConfiguration {
    static func parseRecordSource(
        _ app: inout ConfigurationReader, resolve: (String) -> String
    ) throws(ConfigurationError) -> RecordSource? {
        guard var reader = try app.object("records") else { return nil }
        try reader.allow(["type", "path", "url", "query"])
        let type = try reader.string("type", fix: "\"sqlite\", \"postgres\", \"jsonl\" or \"csv\"")
        func query() throws(ConfigurationError) -> String {
            guard let query = try reader.string("query", fix: "a SELECT returning a sub column") else {
                throw reader.error(
                    "query", "missing",
                    fix: "e.g. SELECT apple_sub AS sub, status, sessions FROM users WHERE apple_sub IS NOT NULL")
            }
            return query
        }
        if type == "postgres" {
            guard let url = try reader.string("url", fix: "the app database's postgres:// URL"),
                url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
            else {
                throw reader.error(
                    "url", "missing or not a postgres:// URL",
                    fix: "e.g. postgres://reader@db.internal/app?sslmode=verify-full (password in PGPASSFILE)")
            }
            let source = RecordSource.postgres(url: url, query: try query())
            try reader.finish()
            return source
        }
        guard let path = try reader.string("path", fix: "the app database or export file") else {
            throw reader.error("path", "missing", fix: "the path of the app's database or export")
        }
        let source: RecordSource
        switch type {
        case "sqlite": source = .sqlite(path: resolve(path), query: try query())
        case "jsonl": source = .jsonLines(path: resolve(path))
        case "csv": source = .csv(path: resolve(path))
        default:
            throw reader.error("type", "missing or unknown record source", fix: "use sqlite, postgres, jsonl or csv")
        }
        try reader.finish()
        return source
    }

    static func parseReconcile(_ root: inout ConfigurationReader) throws(ConfigurationError) -> ReconcileConfiguration {
        var reader = try root.objectOrEmpty("reconcile")
        try reader.allow([
            "dailyAt", "timeZone", "gapThresholdSeconds", "heartbeatSeconds", "lookbackHours", "leaseSeconds",
            "tombstoneStatuses",
        ])
        var configuration = ReconcileConfiguration()
        if let text = try reader.string("dailyAt", fix: "a local time HH:MM, e.g. \"03:00\"") {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
                (0..<60).contains(minute), parts[0].count == 2, parts[1].count == 2
            else { throw reader.error("dailyAt", "\(text) is not HH:MM", fix: "e.g. \"03:00\"") }
            configuration.dailyAt = (hour, minute)
        }
        configuration.timeZone = try reader.string("timeZone", default: "UTC", fix: "an IANA zone such as Asia/Seoul")
        guard TimeZone(identifier: configuration.timeZone) != nil else {
            throw reader.error("timeZone", "unknown time zone \(configuration.timeZone)", fix: "e.g. Asia/Seoul or UTC")
        }
        configuration.gapThresholdSeconds = Int(
            try reader.integer("gapThresholdSeconds", default: 300, range: 60...86_400, fix: "seconds (default 300)"))
        configuration.heartbeatSeconds = Int(
            try reader.integer("heartbeatSeconds", default: 60, range: 1...3600, fix: "seconds (default 60)"))
        guard configuration.heartbeatSeconds < configuration.gapThresholdSeconds else {
            throw reader.error(
                "heartbeatSeconds", "\(configuration.heartbeatSeconds) is not shorter than gapThresholdSeconds",
                fix: "keep heartbeats shorter than the gap threshold, or every interval is a notification gap")
        }
        configuration.lookbackHours = Int(
            try reader.integer("lookbackHours", default: 48, range: 1...8760, fix: "hours (default 48)"))
        configuration.leaseSeconds = Int(
            try reader.integer("leaseSeconds", default: 300, range: 10...86_400, fix: "seconds (default 300)"))
        configuration.tombstoneStatuses =
            try reader.strings("tombstoneStatuses", fix: "app status values meaning deleted") ?? ["deleted"]
        try reader.finish()
        return configuration
    }
}
