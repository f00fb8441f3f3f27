import AppleNotifications
import LifecycleCore
import LifecycleCrypto
import LifecycleStore

/// The one path every notification takes, whether it arrives over HTTP or is replayed from an archive:
/// extract the JWS → verify (keys by `kid`, RS256, iss/aud/exp/iat) → route by `aud` → store and apply in one
/// transaction → report the outcome. The caller answers only after this returns, so a 200 always means
/// "committed".
public final class NotificationIngestor: Sendable {
    public enum Source: String, Sendable {
        /// Delivered by Apple over HTTP.
        case notification
        /// Replayed from an archive with `lifecycle ingest`.
        case replay
    }

    let configuration: ServiceConfiguration
    let verifier: NotificationVerifier
    let store: any Store
    let log: EventLog
    let metrics: MetricsRegistry
    let notificationsTotal: Counter
    let rejectionsTotal: Counter
    let transitionMetrics: AccountTransitionMetrics
    let lastAccepted: Gauge
    let clock: any LifecycleClock
    let transitions: AccountTransitionRecorder
    let committed: WakeSignal
    /// Seals the relay e-mail and the raw JWS before they reach the store.
    let vault: SubjectKeyVault

    init(
        configuration: ServiceConfiguration, verifier: NotificationVerifier, store: any Store, log: EventLog,
        metrics: MetricsRegistry, clock: any LifecycleClock, transitions: AccountTransitionRecorder,
        committed: WakeSignal,
        vault: SubjectKeyVault
    ) {
        self.vault = vault
        self.transitions = transitions
        self.committed = committed
        self.configuration = configuration
        self.verifier = verifier
        self.store = store
        self.log = log
        self.metrics = metrics
        self.clock = clock
        notificationsTotal = metrics.counter(
            "lifecycle_notifications_total", help: "Notifications received, by event type and outcome.")
        rejectionsTotal = metrics.counter(
            "lifecycle_rejections_total", help: "Notifications that failed verification, by reason code.")
        transitionMetrics = AccountTransitionMetrics(metrics)
        lastAccepted = metrics.gauge(
            "lifecycle_last_accepted_notification_timestamp_seconds",
            help: "Unix time of the last accepted notification.")
    }

    /// At start, `lifecycle_last_accepted_notification_timestamp_seconds` from the newest stored notification,
    /// so that a restart does not leave the series absent (an alert on its age would have no data) until the
    /// next notification arrives. A notification accepted meanwhile is newer and stays.
    public func restoreLastAccepted() async throws {
        guard let latest = try await store.read({ try $0.latestNotificationReceivedAt() }) else { return }
        lastAccepted.raise(to: Double(latest.secondsSinceEpoch))
    }

    /// An HTTP request body: `{"payload": "<JWS>"}` or a form-encoded `payload=`.
    public func ingest(httpBody body: [UInt8]) async -> IngestOutcome {
        let received = clock.now()
        switch NotificationBody.extractJWS(fromHTTPBody: body) {
        case .success(let jws):
            return await ingest(jws: jws, body: body, receivedAt: received, source: .notification, allowExpired: false)
        case .failure(let error):
            return await reject(error, body: body, receivedAt: received, source: .notification, audience: nil)
        }
    }

    /// One archived line: a body as above or a bare compact JWS.
    public func ingest(archivedLine line: [UInt8], allowExpired: Bool) async -> IngestOutcome {
        let received = clock.now()
        switch NotificationBody.extractJWS(fromBodyOrToken: line) {
        case .success(let jws):
            return await ingest(jws: jws, body: line, receivedAt: received, source: .replay, allowExpired: allowExpired)
        case .failure(let error):
            return await reject(error, body: line, receivedAt: received, source: .replay, audience: nil)
        }
    }

    private func ingest(
        jws: String, body: [UInt8], receivedAt: Instant, source: Source, allowExpired: Bool
    ) async -> IngestOutcome {
        let verified: VerifiedNotification
        switch await verifier.verify(jws: jws, at: receivedAt, allowExpired: allowExpired) {
        case .success(let notification): verified = notification
        case .failure(let error) where error.isRetryable:
            log.log(.warning, "notification.keys_unavailable", reason: error.code)
            notificationsTotal.increment([("type", "unverified"), ("outcome", "unavailable")])
            return .unavailable(error.description)
        case .failure(let error):
            return await reject(error, body: body, receivedAt: receivedAt, source: source, audience: nil)
        }
        // The verifier accepted `aud` only because some app lists it, so routing cannot fail here.
        guard let app = configuration.app(forClientID: verified.audience) else {
            let error = VerificationError(.invalidAudience, "no app is configured for this aud")
            return await reject(error, body: body, receivedAt: receivedAt, source: source, audience: verified.audience)
        }
        let bodySHA256 = SHA256.hexDigest(body)
        let outcome: IngestOutcome
        do {
            // A new data key (random bytes, wrapped) and the values sealed under it are made here, outside the
            // write transaction: for a subject's first notification the transaction adds only the key's
            // insert; for a known subject, one key lookup and the seals under its key.
            let candidate = try vault.candidate(
                app: app.id, subject: verified.event.subject, scope: .notifications, at: receivedAt)
            let presealed = try SealedValues(verified, app: app.id, jws: jws, dataKey: candidate.dataKey, vault: vault)
            outcome = try await store.write { [transitions, vault] writer in
                let new = try Self.sealed(
                    verified, app: app.id, jws: jws, receivedAt: receivedAt, bodySHA256: bodySHA256,
                    source: source.rawValue, candidate: candidate, presealed: presealed, vault: vault, in: writer)
                return try Self.record(new, transitions: transitions, in: writer)
            }
        } catch {
            log.log(.error, "notification.store_failed", app: app.id, [("error", .string(String(describing: error)))])
            notificationsTotal.increment([("type", typeLabel(verified.event.type)), ("outcome", "unavailable")])
            return .unavailable("storage unavailable")
        }
        notificationsTotal.increment([("type", typeLabel(verified.event.type)), ("outcome", outcome.outcomeName)])
        var fields: [(String, JSONValue)] = [
            ("type", .string(verified.event.type.canonicalName)),
            ("event_time", .string(verified.event.eventTime.iso8601)), ("source", .string(source.rawValue)),
        ]
        if case .accepted(_, _, _, let account) = outcome {
            transitionMetrics.record(account)
            fields.append(("disposition", .string(account.disposition.canonicalName)))
            fields.append(("state", .string(account.state.canonicalName)))
            committed.notify()
            lastAccepted.raise(to: Double(receivedAt.secondsSinceEpoch))
        }
        log.log(.info, "notification.\(outcome.outcomeName)", app: app.id, subject: verified.event.subject, fields)
        return outcome
    }

    /// The inbox row as stored: the e-mail address and the raw JWS sealed under the subject's data key, or
    /// left out when the subject's data was erased and the account is deleted (the row then keeps the
    /// event's type, times and body hash, not its personal values).
    static func sealed(
        _ verified: VerifiedNotification, app: String, jws: String, receivedAt: Instant, bodySHA256: String,
        source: String, candidate: SubjectKeyVault.Candidate, presealed: SealedValues, vault: SubjectKeyVault,
        in writer: any StoreWriter
    ) throws -> NewNotification {
        var values = SealedValues(email: nil, token: nil)
        if let dataKey = try vault.sealingKey(for: candidate, in: writer) {
            values =
                dataKey == candidate.dataKey
                ? presealed
                : try SealedValues(verified, app: app, jws: jws, dataKey: dataKey, vault: vault)
        }
        return NewNotification(
            app: app, notification: verified, receivedAt: receivedAt, bodySHA256: bodySHA256,
            sealedEmail: values.email, sealedRawJWS: values.token, source: source)
    }

    /// A notification's e-mail address (when it has one) and raw JWS, sealed under one data key.
    struct SealedValues: Sendable {
        var email: [UInt8]?
        var token: [UInt8]?

        init(email: [UInt8]?, token: [UInt8]?) {
            self.email = email
            self.token = token
        }

        init(_ verified: VerifiedNotification, app: String, jws: String, dataKey: [UInt8], vault: SubjectKeyVault)
            throws
        {
            let subject = verified.event.subject
            email = try verified.event.email.map { email in
                try vault.seal(
                    Array(email.utf8), column: .notificationEmail, app: app, subject: subject, rowKey: verified.jti,
                    dataKey: dataKey)
            }
            token = try vault.seal(
                Array(jws.utf8), column: .notificationToken, app: app, subject: subject, rowKey: verified.jti,
                dataKey: dataKey)
        }
    }

    /// The transaction body: the inbox row, and for known types the account's transition and its effects,
    /// all committed together or not at all.
    static func record(
        _ new: NewNotification, transitions: AccountTransitionRecorder, in writer: any StoreWriter
    ) throws -> IngestOutcome {
        switch try writer.insertNotification(new) {
        case .duplicateJTI(let existing), .duplicateEvent(let existing):
            return .duplicate(existingID: existing)
        case .inserted(let id):
            let type = new.notification.event.type
            guard let input = AccountInput(notification: new.notification, receivedAt: new.receivedAt) else {
                return .ignored(notificationID: id, app: new.app, type: type.canonicalName)
            }
            let context = TransitionContext(
                app: new.app, subject: new.notification.event.subject, input: input, source: new.source,
                notificationID: id)
            let account = try transitions.apply(context, in: writer)
            return .accepted(notificationID: id, app: new.app, type: type, account: account)
        }
    }

    private func reject(
        _ error: VerificationError, body: [UInt8], receivedAt: Instant, source: Source, audience: String?
    ) async -> IngestOutcome {
        rejectionsTotal.increment([("reason", error.code.rawValue)])
        notificationsTotal.increment([("type", "unverified"), ("outcome", "rejected")])
        log.log(
            .warning, "notification.rejected", reason: error.code,
            [("source", .string(source.rawValue)), ("bytes", .integer(Int64(body.count)))])
        let rejection = NewRejection(
            reason: error.code, receivedAt: receivedAt, bodySize: body.count, bodySHA256: SHA256.hexDigest(body),
            audience: audience, source: source.rawValue)
        do {
            try await store.write { writer in try writer.insertRejection(rejection) }
        } catch {
            log.log(.error, "rejection.store_failed", [("error", .string(String(describing: error)))])
        }
        return .rejected(error)
    }

    /// Metric label for a type: unknown types share one label so a hostile sender cannot grow the series.
    private func typeLabel(_ type: AppleEventType) -> String {
        type.isKnown ? type.canonicalName : "unknown"
    }
}
