import Foundation
import LifecycleCore
import LifecycleSQL
import LifecycleStore

/// The `sqlite` and `postgres` targets: the configured statements run in one transaction with `:sub` (and
/// ``ErasureParameters``' `:provider`, `:provider_sub`) bound,
/// then the verification query, which must count 0 (DESIGN.md §7); a count above 0 — or no verification
/// query at all — is `unverifiable`, never erased. Then `removeRemnants` leaves no old bytes of the erased
/// rows beside the database (SQLite: the log truncated; PostgreSQL: the configured tables vacuumed), and its
/// account goes into the evidence; when it cannot complete, the attempt fails and is retried.
struct DatabaseErasureTarget: Sendable {
    /// Opens the app's database (SQLite file or PostgreSQL URL); called on the target's own thread.
    var open: @Sendable () throws -> any ExternalDatabase
    var statements: [String]
    var verify: String?
    /// What to do after the statements; returns what was done, or why nothing was (``ErasureHygiene``).
    var removeRemnants: @Sendable (any ExternalDatabase) throws -> String?

    /// Runs on the ``BlockingExecutor``: SQLite and libpq calls block, and the cooperative pool must not.
    func erase(subject: String) async -> ErasureStepResult {
        let target = self
        return await BlockingExecutor.shared.run { target.eraseBlocking(subject: subject) }
    }

    func eraseBlocking(subject: String) -> ErasureStepResult {
        let parameters = ErasureParameters.forAccount(subject)
        do {
            let database = try open()
            defer { database.close() }
            let rows = try database.executeInTransaction(statements, parameters: parameters)
            guard let verify else {
                let hygiene = try? removeRemnants(database)
                return .unverifiable(
                    ErasureStepEvidence(rowsAffected: rows, errorCode: .noVerificationQuery, hygiene: hygiene ?? nil)
                )
            }
            let remaining = Int(try database.queryInteger(verify, parameters: parameters) ?? -1)
            guard remaining == 0 else {
                return .unverifiable(
                    ErasureStepEvidence(
                        rowsAffected: rows, verificationCount: remaining,
                        errorCode: .verificationNonzero))
            }
            do {
                let hygiene = try removeRemnants(database)
                return .erased(ErasureStepEvidence(rowsAffected: rows, verificationCount: 0, hygiene: hygiene))
            } catch let failure as any ExternalDatabaseFailure {
                return .failed(
                    ErasureStepEvidence(rowsAffected: rows, verificationCount: 0, errorCode: failure.code),
                    retryable: failure.isTransient)
            }
        } catch let failure as any ExternalDatabaseFailure {
            // A locked file or a server that is down may come back; SQL the database rejects will not.
            return .failed(ErasureStepEvidence(errorCode: failure.code), retryable: failure.isTransient)
        } catch {
            return .failed(ErasureStepEvidence(errorCode: .databaseError), retryable: true)
        }
    }
}
