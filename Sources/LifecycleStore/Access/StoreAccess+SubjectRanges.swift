import LifecycleCore
import LifecycleSQL

/// What the report's collect stage reads of a page of accounts at once: the rows of every account whose `sub`
/// lies in `[fromSubject, throughSubject]` (byte order, `COLLATE "C"` on PostgreSQL, as ``accounts(app:afterSubject:limit:)``
/// pages them), each a range scan of the table's `(app, sub, …)` index or primary key. One statement per table
/// and page instead of one per account: a month of a million deletion requests is a few thousand statements,
/// not millions.
extension StoreAccess {
    func history(
        app: String, fromSubject: String, throughSubject: String
    ) throws(StoreError) -> [(subject: String, entry: StoredHistoryEntry)] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(HistoryRow.columns), sub
                FROM account_history WHERE app = $1 AND sub >= $2 AND sub <= $3 ORDER BY sub, id
                """, [app, fromSubject, throughSubject]
            ) { row in (subject: row.text(12), entry: try HistoryRow.decode(row)) }
        }
    }

    func requestDecisions(
        app: String, fromSubject: String, throughSubject: String
    ) throws(StoreError) -> [StoredRequestDecision] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(Self.requestDecisionColumns) FROM request_decisions
                WHERE app = $1 AND sub >= $2 AND sub <= $3 ORDER BY sub, id
                """, [app, fromSubject, throughSubject]
            ) { row in try decodeDecision(row) }
        }
    }

    func appleRevocations(
        app: String, fromSubject: String, throughSubject: String
    ) throws(StoreError) -> [StoredAppleRevocation] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(AppleRevocationRow.columns) FROM apple_revocations
                WHERE app = $1 AND sub >= $2 AND sub <= $3 ORDER BY sub
                """, [app, fromSubject, throughSubject]
            ) { row in try AppleRevocationRow.decode(row) }
        }
    }

    func subjectKeys(
        app: String, fromSubject: String, throughSubject: String
    ) throws(StoreError) -> [StoredSubjectKey] {
        try sql {
            try connection.fetchAll(
                """
                SELECT \(SubjectKeyRow.columns) FROM subject_keys
                WHERE app = $1 AND sub >= $2 AND sub <= $3 ORDER BY sub, scope
                """, [app, fromSubject, throughSubject]
            ) { row in try SubjectKeyRow.decode(row) }
        }
    }
}
