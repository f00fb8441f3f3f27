import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// What an operator or the app backend can do to one account: look at it, report a sign-in (`linked`) or
/// an in-app deletion. Both the admin routes and `lifecycle account` call these, so the rules (unknown app,
/// deleted is terminal, event times not from the future) hold the same way on every entry point. Moves go
/// through ``AccountTransitionRecorder`` like notifications do, with source `admin`.
public struct AccountOperations: Sendable {
    /// Bounds on what one call reads or accepts.
    public struct Limits: Sendable, Hashable {
        /// Most pending plus dead outbox messages examined when showing an account's messages (the store has
        /// no per-account index for them; both sets are small unless the receiver has been down long).
        /// Default 10,000 per status.
        public var outboxScanLimit: Int = 10_000
        /// Page size of that scan. Default 500.
        public var outboxPageSize: Int = 500

        public init() {}
    }

    /// The apps, transitions and leeway come from the configuration in force at each call, so a reload of
    /// `serve` applies to the next request.
    let context: ServiceContext
    let store: any Store
    let transitionMetrics: AccountTransitionMetrics
    let log: EventLog
    let clock: any LifecycleClock
    /// Rung after a commit: a transition may have enqueued webhooks, which the dispatcher then sends at once.
    let committed: WakeSignal
    public var limits: Limits

    public init(context: ServiceContext, limits: Limits = Limits()) {
        self.context = context
        store = context.store
        transitionMetrics = AccountTransitionMetrics(context.metrics)
        log = context.log
        clock = context.clock
        committed = context.outboxSignal
        self.limits = limits
    }

    /// The configured app ids.
    public var appIDs: Set<String> { Set(context.configuration.apps.map(\.id)) }

    /// The account with its whole history, its pending and dead outbox messages, and its erasure jobs with
    /// their steps and evidence (DESIGN.md §4).
    /// - Throws: ``AdminError`` `unknown_app`, `unknown_account`, `storage_unavailable`.
    public func show(app: String, subject: String) async throws -> JSONValue {
        try checkApp(app)
        let limits = limits
        let found = try await AdminError.mappingStoreFailures(log: log) {
            try await store.read {
                reader -> (
                    AccountRecord, [StoredHistoryEntry], [OutboxMessage], [StoredErasureJob], [StoredAccountAlias]
                )?
                in
                guard let record = try reader.account(app: app, subject: subject) else { return nil }
                let history = try reader.history(app: app, subject: subject)
                let jobs = try reader.erasureJobs(app: app, subject: subject)
                let aliases = try reader.accountAliases(app: app, subject: subject)
                var messages: [OutboxMessage] = []
                for status in [OutboxStatus.pending, .dead] {
                    var after: Int64? = nil
                    var scanned = 0
                    while scanned < limits.outboxScanLimit {
                        let page = try reader.outbox(
                            status: status, limit: min(limits.outboxPageSize, limits.outboxScanLimit - scanned),
                            afterID: after)
                        messages += page.filter { $0.app == app && $0.subject == subject }
                        scanned += page.count
                        guard page.count == limits.outboxPageSize, let last = page.last else { break }
                        after = last.id
                    }
                }
                return (record, history, messages.sorted { $0.id < $1.id }, jobs, aliases)
            }
        }
        guard let (record, history, messages, jobs, aliases) = found else { throw AdminError.unknownAccount }
        var document = AdminDocuments.account(app: app, subject: subject, record: record)
        document["history"] = .array(history.map(AdminDocuments.history))
        document["outbox"] = .array(messages.map { AdminDocuments.outboxMessage($0, includePayload: false) })
        let pseudonym = context.pseudonymizer.pseudonym(app: app, subject: subject)
        document["erasureJobs"] = .array(jobs.map { $0.document(pseudonym: pseudonym) })
        document["aliases"] = .array(AdminDocuments.aliases(aliases))
        return .object(document)
    }

    /// The app reports a Sign in with Apple sign-in at `eventTime` (default now): creates an unknown account,
    /// refreshes a linked one, re-links a consent-revoked one when newer than the revocation.
    /// - Throws: ``AdminError`` `account_deleted` (409) for a deleted account (the refused input is still
    ///   recorded in history), `unknown_app`, `event_time_in_future`, `storage_unavailable`.
    public func link(app: String, subject: String, eventTime: Instant? = nil) async throws -> JSONValue {
        let outcome = try await apply(.linked, app: app, subject: subject, eventTime: eventTime)
        if outcome.state == .deleted { throw AdminError.accountDeleted }
        return Self.document(app: app, subject: subject, outcome: outcome)
    }

    /// ``apply(_:app:subject:eventTime:alsoInTransaction:)`` of a `linked` input, for the token vault.
    func applyLinked(
        app: String, subject: String, eventTime: Instant?,
        alsoInTransaction: @escaping @Sendable (AccountOutcome, any StoreWriter) throws -> Void
    ) async throws -> AccountOutcome {
        try await apply(.linked, app: app, subject: subject, eventTime: eventTime, alsoInTransaction: alsoInTransaction)
    }

    /// The user deleted the account inside the app at `eventTime` (default now). Deleted is terminal:
    /// repeating it answers the deleted account again (the repeat is recorded as duplicate or ignored).
    public func delete(app: String, subject: String, eventTime: Instant? = nil) async throws -> JSONValue {
        let outcome = try await apply(.inAppDeletion, app: app, subject: subject, eventTime: eventTime)
        return Self.document(app: app, subject: subject, outcome: outcome)
    }

    private func apply(
        _ kind: AccountInputKind, app: String, subject: String, eventTime: Instant?,
        alsoInTransaction: (@Sendable (AccountOutcome, any StoreWriter) throws -> Void)? = nil
    ) async throws -> AccountOutcome {
        let active = context.current
        guard active.configuration.apps.contains(where: { $0.id == app }) else { throw AdminError.unknownApp(app) }
        // How far ahead of now a reported `eventTime` may be (clock skew between the app and this service):
        // the same leeway Apple tokens get. A later one is refused, since it would make every real later input
        // of its aspect look stale.
        let futureLeewaySeconds = Int64(active.configuration.apple.leewaySeconds)
        guard !subject.isEmpty else { throw AdminError.badRequest(.invalidSub, "the sub must not be empty") }
        let now = clock.now()
        let eventTime = eventTime ?? now
        guard eventTime <= now.adding(seconds: futureLeewaySeconds) else {
            throw AdminError.unprocessable(
                .eventTimeInFuture, "eventTime is more than \(futureLeewaySeconds) s ahead of this server's clock")
        }
        let context = TransitionContext(
            app: app, subject: subject,
            input: AccountInput(
                kind: kind, eventTime: eventTime, receivedAt: now,
                identity: "admin:\(kind.canonicalName):\(eventTime.iso8601)"),
            source: "admin", notificationID: nil)
        let transitions = active.transitions
        let outcome = try await AdminError.mappingStoreFailures(log: log) {
            try await store.write { writer in
                let outcome = try transitions.apply(context, in: writer)
                try alsoInTransaction?(outcome, writer)
                return outcome
            }
        }
        committed.notify()
        transitionMetrics.record(outcome)
        log.log(
            .info, "account.\(kind.canonicalName)", app: app, subject: subject,
            [
                ("source", "admin"), ("disposition", .string(outcome.disposition.canonicalName)),
                ("state", .string(outcome.state.canonicalName)),
            ])
        return outcome
    }

    package static func document(app: String, subject: String, outcome: AccountOutcome) -> JSONValue {
        var document = AdminDocuments.account(app: app, subject: subject, record: outcome.record)
        document["disposition"] = .string(outcome.disposition.canonicalName)
        if let reason = outcome.disposition.reason { document["reason"] = .string(reason) }
        return .object(document)
    }

    /// The account's Apple token vault state: held (since when, for which client ID), not held, or revoked
    /// at T. Never the token.
    /// - Throws: ``AdminError`` `unknown_app`, `unknown_account`, `storage_unavailable`.
    public func appleToken(app: String, subject: String) async throws -> JSONValue {
        try checkApp(app)
        let found = try await AdminError.mappingStoreFailures(log: log) {
            try await store.read { reader -> (AccountRecord?, StoredAppleToken?) in
                (try reader.account(app: app, subject: subject), try reader.appleToken(app: app, subject: subject))
            }
        }
        guard found.0 != nil else { throw AdminError.unknownAccount }
        return .object(AdminDocuments.appleToken(app: app, subject: subject, stored: found.1))
    }

    private func checkApp(_ app: String) throws {
        guard appIDs.contains(app) else { throw AdminError.unknownApp(app) }
    }
}
