import LifecycleCore
import LifecycleStore

/// Applies one input to one account inside a store transaction: load the record, run the pure state machine,
/// save the record, append the history row (applied, stale, duplicate or ignored, with the reason), and
/// record the effects. Every path that moves an account — notifications, replays, the admin API, the
/// reconciler — goes through here, so they all obey the same rules.
public struct AccountTransitionRecorder: Sendable {
    public var effects: EffectRecorder

    public init(effects: EffectRecorder) {
        self.effects = effects
    }

    @discardableResult
    public func apply(_ context: TransitionContext, in writer: any StoreWriter) throws -> AccountOutcome {
        var machine = AccountStateMachine(record: try writer.account(app: context.app, subject: context.subject))
        let outcome = machine.apply(context.input)
        try writer.saveAccount(app: context.app, subject: context.subject, record: outcome.record)
        try writer.appendHistory(
            app: context.app, subject: context.subject, entry: outcome.history, source: context.source,
            notificationID: context.notificationID)
        try effects.record(outcome.effects, context: context, in: writer)
        return outcome
    }
}
