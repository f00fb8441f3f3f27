import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import LifecycleStore
import SharedSignals

/// The one path a Security Event Token takes, pushed (RFC 8935) or polled (RFC 8936), the Shared Signals twin
/// of ``NotificationIngestor``: for a push the bearer token and the media type, then for both ``accept(_:from:receivedAt:source:expectedJTI:)``:
/// verify (``SecurityEventVerifier``) → the provider's `events` → store and apply in one transaction (the inbox
/// row, and for an account event the account's transition and its effects through
/// ``AccountTransitionRecorder``) → report. The caller answers (a push's 202, a poll's `ack`) only after this
/// returns, so either always means "committed".
public final class SecurityEventIngestor: Sendable {
    /// The RFC 8935 §2.1 media type of a pushed SET.
    public static let mediaType = "application/secevent+jwt"
    /// The inbox `source` of a pushed SET.
    static let source = "signal"
    /// The inbox `source` of a polled SET.
    static let pollSource = "signal-poll"

    let receivers: [String: SecurityEventReceiver]
    let store: any Store
    let log: EventLog
    let clock: any LifecycleClock
    let transitions: AccountTransitionRecorder
    let committed: WakeSignal
    let vault: SubjectKeyVault
    let eventsTotal: Counter
    let rejectionsTotal: Counter
    let transitionMetrics: AccountTransitionMetrics

    init(
        receivers: [String: SecurityEventReceiver], store: any Store, log: EventLog, metrics: MetricsRegistry,
        clock: any LifecycleClock, transitions: AccountTransitionRecorder, committed: WakeSignal,
        vault: SubjectKeyVault
    ) {
        self.receivers = receivers
        self.store = store
        self.log = log
        self.clock = clock
        self.transitions = transitions
        self.committed = committed
        self.vault = vault
        eventsTotal = metrics.counter(
            "lifecycle_security_events_total",
            help:
                "Security Event Tokens pushed or polled from Shared Signals transmitters, by provider, event type "
                + "and outcome.")
        rejectionsTotal = metrics.counter(
            "lifecycle_rejections_total", help: "Notifications that failed verification, by reason code.")
        transitionMetrics = AccountTransitionMetrics(metrics)
    }

    /// The receiver of a push path, nil when no provider pushes there (a poll provider's path is not served:
    /// its transmitter never pushes).
    public func receiver(atPath path: String) -> SecurityEventReceiver? {
        receivers[path].flatMap { $0.provider.stream.delivery == .push ? $0 : nil }
    }

    /// The receiver of a poll provider of `app`, nil when the configuration in force has none by that id.
    public func pollReceiver(app: String, provider: String) -> SecurityEventReceiver? {
        receivers.values.first { $0.app == app && $0.provider.id == provider && $0.provider.stream.delivery == .poll }
    }

    /// Every provider's receiver, for readiness and key refreshes.
    public var allReceivers: [SecurityEventReceiver] { receivers.values.sorted { $0.provider.path < $1.provider.path } }

    /// One push: the request's `Content-Type` and `Authorization` headers and its body.
    public func ingest(
        _ receiver: SecurityEventReceiver, contentType: String?, authorization: String?, body: [UInt8]
    ) async -> SecurityEventOutcome {
        let receivedAt = clock.now()
        guard receiver.authorizes(authorization) else {
            return await reject(
                VerificationError(.badAuthorization, "the Authorization header does not carry the provider's token"),
                receiver, body: body, receivedAt: receivedAt)
        }
        guard Self.isSecurityEventMediaType(contentType) else {
            return await reject(
                VerificationError(.unsupportedMediaType, "Content-Type must be \(Self.mediaType)"), receiver,
                body: body, receivedAt: receivedAt)
        }
        return await accept(body, from: receiver, receivedAt: receivedAt, source: Self.source)
    }

    /// Verifies and stores one SET, pushed or polled: the part both deliveries share. `expectedJTI` is the
    /// key a poll answer gave the SET (RFC 8936 §2.2 `sets` is keyed by `jti`): a SET whose own `jti` differs is
    /// refused, so the `ack` names what was stored.
    func accept(
        _ body: [UInt8], from receiver: SecurityEventReceiver, receivedAt: Instant, source: String,
        expectedJTI: String? = nil
    ) async -> SecurityEventOutcome {
        let provider = receiver.provider.id
        let token: SecurityEventToken
        switch await receiver.verifier.verify(body, at: receivedAt) {
        case .success(let verified): token = verified
        case .failure(let error) where error.isRetryable:
            log.log(.warning, "signal.keys_unavailable", app: receiver.app, reason: error.code)
            eventsTotal.increment([("provider", provider), ("type", "unverified"), ("outcome", "unavailable")])
            return .unavailable(error.description)
        case .failure(let error):
            return await reject(error, receiver, body: body, receivedAt: receivedAt, source: source)
        }
        if let expectedJTI, token.jti != expectedJTI {
            return await reject(
                VerificationError(.malformedClaims, "the SET's jti is not its key in the poll answer's sets"),
                receiver, body: body, receivedAt: receivedAt, source: source)
        }
        // Stream events are the stream's own (SSF 1.0 §8.1): a verification is always answered.
        let streamEvent = token.eventType == .verification || token.eventType == .streamUpdated
        if let events = receiver.provider.events, !streamEvent, !events.contains(token.eventType.uri) {
            return await reject(
                VerificationError(.eventNotRequested, "event type \(token.eventType.shortName) is not one of events"),
                receiver, body: body, receivedAt: receivedAt, source: source)
        }
        let account = streamEvent ? nil : token.subject?.providerSubject(provider: provider)
        // A stream event, or a token subject, names no account: it is stored under the stream's key, which for
        // a verification holds its `state` and for a stream-updated its `status` (``SignalStreamEvents``). An
        // account's identifier may be an alias of another account (``AccountAliases``): that is resolved in
        // the write, and the key sealed under here is then replaced.
        let named = account?.accountKey ?? SignalStreamEvents.key(provider: provider, token: token)
        let unsealed = NewSecurityEvent(
            app: receiver.app, provider: provider, jti: token.jti, issuer: token.issuer, audience: token.audience,
            subject: named, eventTypeURI: token.eventType.uri, eventTime: token.eventTime, issuedAt: token.issuedAt,
            expiresAt: token.expiresAt, keyID: token.keyID, receivedAt: receivedAt,
            bodySHA256: SHA256.hexDigest(body), sealedRawSET: nil, source: source)
        let input: AccountInput? =
            if case .input(let kind) = token.eventType.effect, account != nil {
                AccountInput(
                    kind: kind, eventTime: token.eventTime, receivedAt: receivedAt, identity: unsealed.inboxKey)
            } else {
                nil
            }
        let outcome: SecurityEventOutcome
        do {
            let candidate = try vault.candidate(
                app: receiver.app, subject: named, scope: .notifications, at: receivedAt)
            let presealed = try vault.seal(
                body, column: .notificationToken, app: receiver.app, subject: named, rowKey: unsealed.inboxKey,
                dataKey: candidate.dataKey)
            outcome = try await store.write { [transitions, vault] writer in
                var new = unsealed
                let aliases = AccountAliases(app: new.app, writer: writer)
                let subject = account == nil ? named : try aliases.account(named: named)
                new.subject = subject
                let sealing =
                    subject == named
                    ? candidate
                    : try vault.candidate(app: new.app, subject: subject, scope: .notifications, at: receivedAt)
                if let dataKey = try vault.sealingKey(for: sealing, in: writer) {
                    new.sealedRawSET =
                        subject == named && dataKey == candidate.dataKey
                        ? presealed
                        : try vault.seal(
                            body, column: .notificationToken, app: new.app, subject: subject, rowKey: new.inboxKey,
                            dataKey: dataKey)
                }
                switch try writer.insertSecurityEvent(new) {
                case .duplicateJTI(let existing), .duplicateEvent(let existing):
                    return .duplicate(existingID: existing)
                case .inserted(let id):
                    if account != nil {
                        try aliases.record(token, named: named, account: subject, notificationID: id, at: receivedAt)
                    }
                    guard let input else { return .accepted(notificationID: id, type: token.eventType, account: nil) }
                    let context = TransitionContext(
                        app: new.app, subject: subject, input: input, source: "notification", notificationID: id)
                    let changed = try transitions.apply(context, in: writer)
                    return .accepted(notificationID: id, type: token.eventType, account: changed)
                }
            }
        } catch {
            log.log(.error, "signal.store_failed", app: receiver.app, [("error", .string(String(describing: error)))])
            eventsTotal.increment([
                ("provider", provider), ("type", token.eventType.shortName), ("outcome", "unavailable"),
            ])
            return .unavailable("storage unavailable")
        }
        eventsTotal.increment([
            ("provider", provider), ("type", token.eventType.shortName), ("outcome", outcome.outcomeName),
        ])
        var fields: [(String, JSONValue)] = [
            ("provider", .string(provider)), ("type", .string(token.eventType.shortName)),
            ("event_time", .string(token.eventTime.iso8601)),
        ]
        if let reason = token.reasonForLog { fields.append(("event_reason", .string(reason))) }
        if case .accepted(_, _, let changed) = outcome, let changed {
            transitionMetrics.record(changed)
            fields.append(("disposition", .string(changed.disposition.canonicalName)))
            fields.append(("state", .string(changed.state.canonicalName)))
            committed.notify()
        }
        log.log(.info, "signal.\(outcome.outcomeName)", app: receiver.app, subject: named, fields)
        return outcome
    }

    /// RFC 8935 §2.1: `application/secevent+jwt`, compared case-insensitively (RFC 9110 §8.3.1), parameters
    /// allowed.
    static func isSecurityEventMediaType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(type.drop(while: blank).reversed().drop(while: blank).reversed()).lowercased() == mediaType
    }

    private func reject(
        _ error: VerificationError, _ receiver: SecurityEventReceiver, body: [UInt8], receivedAt: Instant,
        source: String = SecurityEventIngestor.source
    ) async -> SecurityEventOutcome {
        rejectionsTotal.increment([("reason", error.code.rawValue)])
        eventsTotal.increment([("provider", receiver.provider.id), ("type", "unverified"), ("outcome", "rejected")])
        log.log(
            .warning, "signal.rejected", app: receiver.app, reason: error.code,
            [("provider", .string(receiver.provider.id)), ("bytes", .integer(Int64(body.count)))])
        let rejection = NewRejection(
            reason: error.code, receivedAt: receivedAt, bodySize: body.count, bodySHA256: SHA256.hexDigest(body),
            audience: nil, source: source)
        do {
            try await store.write { writer in try writer.insertRejection(rejection) }
        } catch {
            log.log(.error, "rejection.store_failed", [("error", .string(String(describing: error)))])
        }
        return .rejected(error)
    }
}
