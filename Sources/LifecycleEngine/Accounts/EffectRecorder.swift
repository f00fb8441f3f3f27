import LifecycleCore
import LifecycleCrypto
import LifecycleStore

/// Turns the effects the state machine names into durable rows, inside the transition's transaction
/// (transactional outbox, DESIGN.md §6): nothing is sent from here, so a crash after the commit loses nothing
/// and a rollback sends nothing.
public struct EffectRecorder: Sendable {
    /// Apps that configured a webhook receive messages; for the others the history row is the record.
    public var webhookApps: Set<String>
    /// Writes erasure jobs for `schedulePolicy` and cancels them for `cancelRelinkCancellableJobs`.
    public var erasure: (any ErasureScheduling)?
    /// The `webhook-id` of a message created at an instant (``WebhookMessageID``, random bits from OpenSSL).
    public var messageIDs: @Sendable (Instant) -> String

    public init(
        webhookApps: Set<String>, erasure: (any ErasureScheduling)? = nil,
        messageIDs: @escaping @Sendable (Instant) -> String = { instant in
            WebhookMessageID.make(at: instant, random: SecureRandom.bytes(count: WebhookMessageID.randomByteCount))
        }
    ) {
        self.webhookApps = webhookApps
        self.erasure = erasure
        self.messageIDs = messageIDs
    }

    public func record(_ effects: [AccountEffect], context: TransitionContext, in writer: any StoreWriter) throws {
        for effect in effects {
            switch effect {
            case .terminateSessions:
                try enqueue(.sessionsTerminate, context: context, data: [:], in: writer)
            case .emailForwardingChanged(let enabled):
                try enqueue(.emailForwardingChanged, context: context, data: ["enabled": .bool(enabled)], in: writer)
            case .dropAppleTokens:
                // Apple ended the grant itself (deleted account, revoked consent): nothing to revoke.
                try writer.dropAppleToken(app: context.app, subject: context.subject, at: context.input.receivedAt)
            case .revokeAppleTokens:
                // App Store Review Guideline 5.1.1(v): an in-app deletion revokes at Apple. Queued here, in the
                // transition's transaction, so a crash after the commit still revokes; the token stays sealed
                // in the vault until the revocation worker is done with it.
                try writer.enqueueAppleRevocation(
                    app: context.app, subject: context.subject, at: context.input.receivedAt)
            case .schedulePolicy(let trigger):
                try erasure?.schedule(trigger: trigger, context: context, in: writer)
            case .cancelRelinkCancellableJobs:
                try erasure?.cancelForRelink(context: context, in: writer)
            }
        }
    }

    /// The body follows Standard Webhooks (`type`, `timestamp`, `data`); it is frozen at enqueue time so a
    /// retry sends the same bytes, and `webhook-id` (fixed here too) lets the receiver de-duplicate.
    private func enqueue(
        _ kind: WebhookKind, context: TransitionContext, data: JSONObject, in writer: any StoreWriter
    ) throws {
        guard webhookApps.contains(context.app) else { return }
        var payloadData: JSONObject = [
            "app": .string(context.app), "sub": .string(context.subject),
            "provider": .string(ProviderSubject.providerName(ofAccountKey: context.subject)),
            "reason": .string(context.input.kind.rawValue), "event_time": .string(context.input.eventTime.iso8601),
        ]
        for member in data { payloadData[member.key] = member.value }
        let payload: JSONValue = [
            "type": .string(kind.rawValue), "timestamp": .string(context.input.receivedAt.iso8601),
            "data": .object(payloadData),
        ]
        _ = try writer.enqueueOutbox(
            NewOutboxMessage(
                app: context.app, subject: context.subject, kind: kind.rawValue, payload: payload.serialized(),
                messageID: messageIDs(context.input.receivedAt), availableAt: context.input.receivedAt))
    }
}

/// The erasure side of transitions: schedules jobs under the app's policy and cancels re-link-cancellable
/// ones, in the caller's transaction.
public protocol ErasureScheduling: Sendable {
    func schedule(trigger: PolicyTrigger, context: TransitionContext, in writer: any StoreWriter) throws
    func cancelForRelink(context: TransitionContext, in writer: any StoreWriter) throws
}
