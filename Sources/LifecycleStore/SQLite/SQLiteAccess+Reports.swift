import LifecycleCore

/// The daily report records on SQLite.
extension SQLiteAccess {
    func dailyReport(day: String, app: String) throws(StoreError) -> DailyReportRecord? {
        try sqlite {
            try connection.firstRow(
                "SELECT instance, written_at_ms FROM daily_reports WHERE day = ? AND app = ?", [day, app]
            ) { row in
                DailyReportRecord(
                    day: day, app: app, instance: row.text(0),
                    writtenAt: Instant(millisecondsSinceEpoch: row.int64(1)))
            }
        }
    }

    func recordDailyReport(_ record: DailyReportRecord) throws(StoreError) -> Bool {
        try sqlite {
            try connection.queryInt64(
                """
                INSERT INTO daily_reports (day, app, instance, written_at_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT DO NOTHING RETURNING 1
                """, [record.day, record.app, record.instance, record.writtenAt.millisecondsSinceEpoch]) != nil
        }
    }
}
