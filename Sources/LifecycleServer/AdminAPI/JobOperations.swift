import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// Erasure jobs through the admin API: list, retry a failed job, and the asynchronous completion of a step
/// whose webhook target answered 202 (DESIGN.md §7).
package struct JobOperations: Sendable {
    let context: ServiceContext
    let runner: ErasureJobRunner

    package init(context: ServiceContext, runner: ErasureJobRunner) {
        self.context = context
        self.runner = runner
    }
    static let defaultLimit = 100

    /// Jobs in id order, of one status or all, of one app or all, of one subject or all: every combination
    /// the OpenAPI file allows is answered. A subject's jobs are found by the store's subject index
    /// (`erasure_jobs_account`, not a scan), per configured app when no app is given, so an operator answering
    /// a data-subject request finds them; an app's jobs by walking the job list in id order.
    /// - Throws: ``AdminError`` `invalid_status`, `unknown_app`.
    package func list(
        status: String?, app: String? = nil, subject: String? = nil, limit: Int?, after: Int64?
    ) async throws -> JSONValue {
        let pageSize = limit ?? Self.defaultLimit
        let rows = try await jobs(status: status, app: app, subject: subject, limit: pageSize, after: after)
        return [
            "jobs": .array(rows.map(describe)),
            "next": rows.count == pageSize ? rows.last.map { .integer($0.id) } ?? .null : .null,
        ]
    }

    /// The rows ``list(status:app:subject:limit:after:)`` describes.
    package func jobs(
        status: String?, app: String?, subject: String?, limit pageSize: Int, after: Int64?
    ) async throws -> [StoredErasureJob] {
        var filter: ErasureJobStatus?
        if let status {
            guard let parsed = ErasureJobStatus(canonicalName: status) else {
                throw AdminError.badRequest(
                    .invalidStatus,
                    "status must be one of \(ErasureJobStatus.allCases.map(\.canonicalName).joined(separator: ", "))")
            }
            filter = parsed
        }
        let status = filter
        if let app, !context.configuration.apps.contains(where: { $0.id == app }) {
            throw AdminError(status: 404, code: .unknownApp, "no app with that id is configured")
        }
        if let subject {
            let apps = app.map { [$0] } ?? context.configuration.apps.map(\.id)
            let all = try await context.store.read { reader in
                try apps.flatMap { try reader.erasureJobs(app: $0, subject: subject) }
            }
            return Array(
                all.filter { job in (status == nil || job.status == status) && job.id > (after ?? 0) }
                    .sorted { $0.id < $1.id }.prefix(pageSize))
        }
        guard let app else {
            return try await context.store.read { reader in
                try reader.erasureJobs(status: status, limit: pageSize, afterID: after)
            }
        }
        // One app: pages of the job list, kept when they are that app's, until a page is full.
        var rows: [StoredErasureJob] = []
        var cursor = after
        while rows.count < pageSize {
            let page = try await context.store.read { [cursor] reader in
                try reader.erasureJobs(status: status, limit: pageSize, afterID: cursor)
            }
            rows += page.filter { $0.app == app }.prefix(pageSize - rows.count)
            guard page.count == pageSize, let last = page.last else { break }
            cursor = last.id
        }
        return rows
    }

    package func retry(id: Int64) async throws -> JSONValue {
        guard try await context.store.read({ try $0.erasureJob(id: id) }) != nil else {
            throw AdminError(status: 404, code: .unknownJob, "no erasure job with that id")
        }
        let reset = try await runner.retry(jobID: id)
        guard reset > 0 else {
            throw AdminError(status: 409, code: .nothingToRetry, "the job has no failed or unverified step")
        }
        guard let job = try await context.store.read({ try $0.erasureJob(id: id) }) else {
            throw AdminError(status: 404, code: .unknownJob, "no erasure job with that id")
        }
        return describe(job)
    }

    /// Body (optional): ``StepCompletionBody``.
    package func complete(id: Int64, target: String, body: [UInt8]) async throws -> JSONValue {
        let (outcome, evidence) = try StepCompletionBody.parse(body)
        switch try await runner.completeCallback(jobID: id, target: target, outcome: outcome, evidence: evidence) {
        case .recorded(let job): return describe(job)
        case .notFound:
            throw AdminError(status: 404, code: .unknownStep, "no such job, or the job has no step for that target")
        case .notWaiting(let status):
            throw AdminError(
                status: 409, code: .notWaiting, "the step is \(status.canonicalName), not waiting for a callback")
        }
    }

    private func describe(_ job: StoredErasureJob) -> JSONValue {
        job.document(
            pseudonym: context.pseudonymizer.pseudonym(app: job.app, subject: job.subject))
    }
}
