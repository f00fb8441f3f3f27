import Foundation
import LifecycleCore
import LifecycleStore

/// The `sqlite` target: the app's own SQLite file, its configured statements run in one transaction with
/// `:sub` bound, then the verification query, which must count 0 (DESIGN.md §7). A count above 0 is
/// `unverifiable` (the step ends `unverified`, never `done`): the statements ran, yet the data is still there.
struct SQLiteErasureTarget: Sendable {
    var path: String
    var statements: [String]
    var verify: String?
    var busyTimeoutMilliseconds: Int32

    /// Runs on its own thread: SQLite calls block, and the cooperative pool must not.
    func erase(subject: String) async -> ErasureStepResult {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: eraseBlocking(subject: subject)) }.start()
        }
    }

    func eraseBlocking(subject: String) -> ErasureStepResult {
        let parameters = ["sub": subject]
        do {
            let database = try ExternalSQLiteDatabase(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
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
            // A file that is missing or locked may come back; SQL the database rejects will not fix itself.
            let retryable = error.isTransient || error.code == "sqlite-open"
            return .failed(ErasureStepEvidence(errorCode: error.code), retryable: retryable)
        }
    }
}
