import Foundation
import LifecycleCore
import LifecycleStore

/// The `postgres` target: the twin of ``SQLiteErasureTarget`` for an app whose data lives in PostgreSQL. The
/// configured statements run in one transaction with `:sub` bound, then the verification query, which must
/// count 0 (DESIGN.md §7); a count above 0 is `unverifiable`.
struct PostgresErasureTarget: Sendable {
    var url: String
    var statements: [String]
    var verify: String?
    var connectTimeoutSeconds: Int

    /// Runs on its own thread: libpq calls block, and the cooperative pool must not.
    func erase(subject: String) async -> ErasureStepResult {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: eraseBlocking(subject: subject)) }.start()
        }
    }

    func eraseBlocking(subject: String) -> ErasureStepResult {
        let parameters = ["sub": subject]
        do {
            let database = try ExternalPostgresDatabase(url: url, connectTimeoutSeconds: connectTimeoutSeconds)
            defer { database.close() }
            let rows = try database.executeInTransaction(statements, parameters: parameters)
            guard let verify else {
                return .unverifiable(ErasureStepEvidence(rowsAffected: rows, errorCode: "no-verification-query"))
            }
            let remaining = Int(try database.queryInteger(verify, parameters: parameters) ?? -1)
            guard remaining == 0 else {
                return .unverifiable(
                    ErasureStepEvidence(
                        rowsAffected: rows, verificationCount: remaining,
                        errorCode: ErasureStep.verificationNonZeroCode))
            }
            return .erased(ErasureStepEvidence(rowsAffected: rows, verificationCount: 0))
        } catch {
            // A server that is down or busy may come back; SQL the database rejects will not fix itself.
            return .failed(ErasureStepEvidence(errorCode: error.code), retryable: error.isTransient)
        }
    }
}
