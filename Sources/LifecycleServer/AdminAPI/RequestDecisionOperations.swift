import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// What an operator records about one deletion request besides its erasure (CCPA regulations §7101(a), GDPR
/// Art. 12(3)): an extension of its deadline, a legal hold and its release, a refusal with its basis. The
/// admin routes and `lifecycle request` call these, so the rules hold the same on both. A request is the
/// account's erasure jobs of one trigger and event time (the key the report's ledger rows carry); the
/// account's latest one unless an `eventTime` names another.
public struct RequestDecisionOperations: Sendable {
    let context: ServiceContext

    public init(context: ServiceContext) {
        self.context = context
    }

    /// One request as its jobs show it.
    struct Request {
        var key: DeletionRequestKey
        /// Its erasure (rule) jobs.
        var jobs: [StoredErasureJob]
        var decisions: [StoredRequestDecision]

        var open: [StoredErasureJob] { jobs.filter { $0.status != .completed && $0.status != .cancelled } }
        var heldNow: Bool { decisions.contains { $0.kind == .hold && $0.releasedAt == nil } }
    }

    /// Records `decision` about the request of (app, sub) that `body` names.
    /// - Throws: ``AdminError`` `unknown_app`, `unknown_account`, `unknown_request` (no erasure job for that
    ///   event), `request_closed` (nothing left to extend, hold or refuse), `already_extended`,
    ///   `deadline_passed` (an extension after a deadline of the request's open jobs), `already_held`, `not_held`,
    ///   `extension_not_allowed` (the policy states no extension), `invalid_deadline` and `invalid_notice_at`
    ///   (outside the policy's limits), `storage_unavailable`.
    package func record(
        _ decision: RequestDecision, app: String, subject: String, body: RequestDecisionBody
    ) async throws -> JSONValue {
        let configuration = context.current.configuration
        guard configuration.apps.contains(where: { $0.id == app }) else { throw AdminError.unknownApp(app) }
        guard !subject.isEmpty else { throw AdminError.badRequest(.invalidSub, "the sub must not be empty") }
        let store = context.store
        let log = context.log
        let now = context.clock.now()
        let found = try await AdminError.mappingStoreFailures(log: log) {
            try await store.read { reader -> (Bool, [StoredErasureJob], [StoredRequestDecision]) in
                (
                    try reader.account(app: app, subject: subject) != nil,
                    try reader.erasureJobs(app: app, subject: subject),
                    try reader.requestDecisions(app: app, subject: subject)
                )
            }
        }
        guard found.0 else { throw AdminError.unknownAccount }
        let request = try Self.request(jobs: found.1, decisions: found.2, eventTime: body.eventTime, app: app)
        let new = try newDecision(decision, request: request, body: body, now: now, configuration: configuration)
        let hold = request.decisions.last { $0.kind == .hold && $0.releasedAt == nil }
        let stored: StoredRequestDecision = try await AdminError.mappingStoreFailures(log: log) {
            try await store.write { writer -> StoredRequestDecision in
                if let new {
                    let id = try writer.recordRequestDecision(new)
                    return StoredRequestDecision(id: id, decision: new, releasedAt: nil, releaseReason: nil)
                }
                _ = try writer.releaseRequestHold(request.key, at: now, reason: body.text)
                guard var released = hold else { throw RequestDecisionOperations.notHeld }
                released.releasedAt = now
                released.releaseReason = body.text
                return released
            }
        }
        // The texts are the operator's and may name the person: never logged.
        log.log(
            .info, "request.\(decision.rawValue)", app: app, subject: subject,
            [("eventType", .string(request.key.trigger.canonicalName)), ("decision", .integer(stored.id))])
        return Self.document(stored, app: app, subject: subject)
    }

    /// The decision to store, after the checks; nil for a release (which updates the hold).
    private func newDecision(
        _ decision: RequestDecision, request: Request, body: RequestDecisionBody, now: Instant,
        configuration: ServiceConfiguration
    ) throws -> NewRequestDecision? {
        let key = request.key
        switch decision {
        case .release:
            guard request.heldNow else { throw Self.notHeld }
            return nil
        case .hold:
            guard !request.heldNow else {
                throw AdminError(status: 409, code: .alreadyHeld, "the request is already under a legal hold")
            }
            guard !request.open.isEmpty else { throw Self.closed }
            return NewRequestDecision(request: key, kind: .hold, reason: body.text, recordedAt: now)
        case .refusal:
            guard !request.open.isEmpty else { throw Self.closed }
            return NewRequestDecision(request: key, kind: .refusal, reason: body.text, recordedAt: now)
        case .extension:
            let deadlines = request.open.map(\.job.plan.deadline)
            guard let deadline = deadlines.max(), let earliest = deadlines.min() else { throw Self.closed }
            guard !request.decisions.contains(where: { $0.kind == .extension }) else {
                throw AdminError(
                    status: 409, code: .alreadyExtended,
                    "the request's deadline was already extended; the law allows one extension")
            }
            // The law lets a controller extend a deadline that is still running (GDPR Art. 12(3), CCPA regulations
            // §7021(b)); an extension recorded after it passed would turn a missed deadline into a met one on
            // nothing but a `noticeAt` the service cannot check. Every open job's deadline would move (a failed
            // one's too), and the reports judge a request by the earliest deadline a job missed, so the earliest
            // open one decides.
            guard now <= earliest else {
                throw AdminError(
                    status: 409, code: .deadlinePassed,
                    "the request's deadline \(earliest.iso8601) has passed; an extension has to be recorded before "
                        + "the deadline it extends")
            }
            let reference = request.open[0].job.plan.policyReference
            let policyName = String(reference.prefix { $0 != "#" })
            // The policy the jobs were planned under, by `id@version`: the one in force, else its file (an app may
            // have moved to another policy since the request was scheduled).
            let policy =
                configuration.policies.values.first { $0.reference == policyName }
                ?? PolicyLibrary.load(directory: configuration.policiesDirectory).policies.values.first {
                    $0.reference == policyName
                }
            guard let policy, let terms = policy.extensionTerms else {
                throw AdminError.unprocessable(
                    .extensionNotAllowed,
                    "policy \(policyName) states no \"extension\"; its law allows none, or add one to the policy file")
            }
            guard let newDeadline = body.deadline, let noticeAt = body.noticeAt else {
                throw AdminError.unprocessable(.invalidDeadline, "an extension takes deadline and noticeAt")
            }
            let leeway = Int64(configuration.apple.leewaySeconds)
            do {
                try terms.check(
                    eventTime: key.eventTime, deadline: deadline, newDeadline: newDeadline, noticeAt: noticeAt,
                    now: now.adding(seconds: leeway), calculator: DeadlineCalculator(policy: policy))
            } catch {
                throw AdminError.unprocessable(
                    error.field == .noticeAt ? .invalidNoticeAt : .invalidDeadline, error.problem)
            }
            return NewRequestDecision(
                request: key, kind: .extension, reason: body.text, noticeAt: noticeAt, previousDeadline: deadline,
                newDeadline: newDeadline, recordedAt: now)
        }
    }

    static let notHeld = AdminError(status: 409, code: .notHeld, "the request is not under a legal hold")

    static let closed = AdminError(
        status: 409, code: .requestClosed, "the request has no open erasure job: it was completed, cancelled or refused"
    )

    /// The request of `eventTime`, else the latest one with an erasure job.
    static func request(
        jobs: [StoredErasureJob], decisions: [StoredRequestDecision], eventTime: Instant?, app: String
    ) throws -> Request {
        let erasures = jobs.filter { $0.job.plan.ruleIndex != nil }
        let chosen =
            eventTime.map { time in erasures.filter { $0.job.plan.eventTime == time } }
            ?? erasures.filter { $0.job.plan.eventTime == erasures.map(\.job.plan.eventTime).max() }
        guard let first = chosen.first else {
            throw AdminError(
                status: 404, code: .unknownRequest,
                eventTime == nil
                    ? "the account has no deletion request with an erasure job"
                    : "the account has no deletion request with that eventTime")
        }
        // Two triggers at one instant are two requests: the latest job's trigger decides.
        let trigger = (chosen.last ?? first).job.plan.trigger
        let key = DeletionRequestKey(
            app: app, subject: first.subject, trigger: trigger, eventTime: first.job.plan.eventTime)
        return Request(
            key: key, jobs: chosen.filter { $0.job.plan.trigger == trigger },
            decisions: decisions.filter { $0.request == key })
    }

    package static func document(_ stored: StoredRequestDecision, app: String, subject: String) -> JSONValue {
        let decision = stored.decision
        func instant(_ value: Instant?) -> JSONValue { value.map { .string($0.iso8601) } ?? .null }
        return [
            "id": .integer(stored.id),
            "app": .string(app),
            "sub": .string(subject),
            "eventType": .string(decision.request.trigger.canonicalName),
            "eventTime": .string(decision.request.eventTime.iso8601),
            "kind": .string(decision.kind.rawValue),
            "reason": .string(decision.reason),
            "noticeAt": instant(decision.noticeAt),
            "previousDeadline": instant(decision.previousDeadline),
            "newDeadline": instant(decision.newDeadline),
            "recordedAt": .string(decision.recordedAt.iso8601),
            "releasedAt": instant(stored.releasedAt),
            "releaseReason": stored.releaseReason.map { .string($0) } ?? .null,
        ]
    }
}
