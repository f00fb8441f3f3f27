import LifecycleCore

extension StoreAccess {
    func reapplyErasure(
        app: String, subject: String, scopes: Set<SubjectKeyScope>, erasedAt: Instant, account: AccountRecord?
    ) throws(StoreError) -> ErasureReapplication {
        var result = ErasureReapplication(keysDestroyed: 0, rowsCleared: 0, accountRestored: false)
        for scope in scopes.sorted() {
            result.keysDestroyed += try sql {
                try connection.fetchCount(
                    """
                    UPDATE subject_keys SET wrapped_key = NULL, destroyed_at_ms = $1
                    WHERE app = $2 AND sub = $3 AND scope = $4 AND wrapped_key IS NOT NULL AND created_at_ms <= $1
                    RETURNING 1
                    """, [erasedAt.millisecondsSinceEpoch, app, subject, scope.canonicalName])
            }
            // A live key left now was created after the erasure: what its columns hold is newer data.
            let newer = try sql {
                try connection.fetchInt64(
                    """
                    SELECT count(*) FROM subject_keys
                    WHERE app = $1 AND sub = $2 AND scope = $3 AND wrapped_key IS NOT NULL
                    """, [app, subject, scope.canonicalName]) ?? 0
            }
            if newer == 0 {
                result.rowsCleared += try sql {
                    try connection.fetchCount(SubjectKeyRow.clearing(scope).clear, [app, subject])
                }
            }
        }
        guard let account else { return result }
        result.accountRestored = try sql { () throws -> Bool in
            guard let existing = try self.account(app: app, subject: subject),
                existing.lastAppliedEventTime <= account.lastAppliedEventTime, existing != account
            else { return false }
            try saveAccount(app: app, subject: subject, record: account)
            return true
        }
        return result
    }
}
