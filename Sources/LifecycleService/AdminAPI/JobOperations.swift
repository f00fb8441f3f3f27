import LifecycleCore
import LifecycleStore

/// Erasure jobs through the admin API: list, retry a failed job, and the asynchronous completion of a step
/// whose webhook target answered 202 (DESIGN.md §7).
struct JobOperations: Sendable {
    let context: ServiceContext
    let runner: ErasureJobRunner
    static let defaultLimit = 100

    func list(status: String?, limit: Int?, after: Int64?) async throws -> JSONValue {
        var filter: ErasureJobStatus?
        if let status {
            guard let parsed = ErasureJobStatus(canonicalName: status) else {
                throw AdminError.badRequest(
                    "invalid_status",
                    "status must be one of \(ErasureJobStatus.allCases.map(\.canonicalName).joined(separator: ", "))")
            }
            filter = parsed
        }
        let pageSize = limit ?? Self.defaultLimit
        let status = filter
        let rows = try await context.store.read { reader in
            try reader.erasureJobs(status: status, limit: pageSize, afterID: after)
        }
        return [
            "jobs": .array(rows.map(describe)),
            "next": rows.count == pageSize ? rows.last.map { .integer($0.id) } ?? .null : .null,
        ]
    }

    func retry(id: Int64) async throws -> JSONValue {
        guard try await context.store.read({ try $0.erasureJob(id: id) }) != nil else {
            throw AdminError(status: 404, code: "unknown_job", "no erasure job with that id")
        }
        let reset = try await runner.retry(jobID: id)
        guard reset > 0 else {
            throw AdminError(status: 409, code: "nothing_to_retry", "the job has no failed or unverified step")
        }
        guard let job = try await context.store.read({ try $0.erasureJob(id: id) }) else {
            throw AdminError(status: 404, code: "unknown_job", "no erasure job with that id")
        }
        return describe(job)
    }

    /// Body (optional): ``StepCompletionBody``.
    func complete(id: Int64, target: String, body: [UInt8]) async throws -> JSONValue {
        let (outcome, evidence) = try StepCompletionBody.parse(body)
        switch try await runner.completeCallback(jobID: id, target: target, outcome: outcome, evidence: evidence) {
        case .recorded(let job): return describe(job)
        case .notFound:
            throw AdminError(status: 404, code: "unknown_step", "no such job, or the job has no step for that target")
        case .notWaiting(let status):
            throw AdminError(
                status: 409, code: "not_waiting", "the step is \(status.canonicalName), not waiting for a callback")
        }
    }

    private func describe(_ job: StoredErasureJob) -> JSONValue {
        JobsCommand.describeJSON(
            job, pseudonym: context.pseudonymizer.pseudonym(app: job.app, subject: job.subject))
    }
}
