import LifecycleCore
import LifecycleStore
import SharedSignals

/// Which account a security event's identifier names, and what RISC's identifier events change about that,
/// inside the write that stores the event (so two SETs about one identifier never race).
///
/// - `identifier-changed` (RISC 1.0 §2.5) with `new-value`: the new identifier names the same account from now
///   on, and the old one keeps naming it (the alias is kept). The account keeps its key, state and history.
/// - `identifier-recycled` (RISC 1.0 §2.6): the identifier now names another person. The event is stored with
///   the old holder's account, and from now on the identifier names a new holder's account
///   (``ProviderSubject/generation`` one higher), so nothing the new holder's transmitter sends is applied to
///   the old holder's account: the two are never merged.
struct AccountAliases {
    let app: String
    let writer: any StoreWriter

    /// The account the identifier with key `named` names now.
    func account(named: String) throws -> String {
        try writer.accountAliasInForce(app: app, alias: named)?.alias.subject ?? named
    }

    /// Records what `token`, just stored as `notificationID` under `account`, says about identifiers.
    func record(
        _ token: SecurityEventToken, named: String, account: String, notificationID: Int64, at instant: Instant
    ) throws {
        switch token.eventType {
        case .identifierChanged:
            guard let newValue = token.newValue, let provider = ProviderSubject(accountKey: named),
                let changed = token.subject?.changed(to: newValue)?.providerSubject(provider: provider.provider)
            else { return }
            let alias = changed.accountKey
            guard try self.account(named: alias) != account else { return }
            try writer.recordAccountAlias(
                NewAccountAlias(
                    app: app, alias: alias, subject: account, kind: .changed, notificationID: notificationID,
                    recordedAt: instant))
        case .identifierRecycled:
            guard let identifier = ProviderSubject(accountKey: named) else { return }
            let recycles = try writer.accountAliasCount(app: app, alias: named, kind: .recycled)
            var holder = identifier.firstHolder
            holder.generation = recycles + 2
            try writer.recordAccountAlias(
                NewAccountAlias(
                    app: app, alias: named, subject: holder.accountKey, kind: .recycled,
                    notificationID: notificationID, recordedAt: instant))
        default:
            return
        }
    }
}
