import LifecycleCore
import LifecycleSQL

/// The daily report records: which instance wrote the report of a day, so only one does.
extension StoreAccess {
    func dailyReport(day: String, app: String) throws(StoreError) -> DailyReportRecord? {
        try sql {
            try connection.fetchOne(
                "SELECT instance, written_at_ms FROM daily_reports WHERE day = $1 AND app = $2", [day, app]
            ) { row in
                DailyReportRecord(
                    day: day, app: app, instance: row.text(0),
                    writtenAt: Instant(millisecondsSinceEpoch: row.int64(1)))
            }
        }
    }

    /// Days are `yyyy-MM-dd`, so their text order is their calendar order.
    func lastDailyReportDay(app: String) throws(StoreError) -> String? {
        try sql {
            try connection.fetchOne(
                "SELECT day FROM daily_reports WHERE app = $1 ORDER BY day DESC LIMIT 1", [app]
            ) { row in row.text(0) }
        }
    }

    /// The primary key decides: of two instances inserting one day at once on PostgreSQL, the second waits
    /// for the first to commit and then inserts nothing.
    func recordDailyReport(_ record: DailyReportRecord) throws(StoreError) -> Bool {
        try sql {
            try connection.fetchInt64(
                """
                INSERT INTO daily_reports (day, app, instance, written_at_ms) VALUES ($1, $2, $3, $4)
                ON CONFLICT DO NOTHING RETURNING 1
                """, [record.day, record.app, record.instance, record.writtenAt.millisecondsSinceEpoch]) != nil
        }
    }
}
