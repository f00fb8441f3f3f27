import LifecycleCore

/// The daily report records on PostgreSQL; mirrors ``SQLiteAccess``.
extension PostgresAccess {
    func dailyReport(day: String, app: String) throws(StoreError) -> DailyReportRecord? {
        try postgres {
            try connection.query(
                "SELECT instance, written_at_ms FROM daily_reports WHERE day = $1 AND app = $2", [day, app]
            ).first.map { row in
                DailyReportRecord(
                    day: day, app: app, instance: row.text(0),
                    writtenAt: Instant(millisecondsSinceEpoch: row.int64(1)))
            }
        }
    }

    /// Of two instances inserting one day at once, the second waits for the first to commit and then inserts
    /// nothing (the primary key decides).
    func recordDailyReport(_ record: DailyReportRecord) throws(StoreError) -> Bool {
        try postgres {
            try connection.queryInt64(
                """
                INSERT INTO daily_reports (day, app, instance, written_at_ms) VALUES ($1, $2, $3, $4)
                ON CONFLICT DO NOTHING RETURNING 1
                """, [record.day, record.app, record.instance, record.writtenAt.millisecondsSinceEpoch]) != nil
        }
    }
}
