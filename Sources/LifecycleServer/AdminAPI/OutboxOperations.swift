import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// Looking at the outbox and sending a `dead` message round again, for the admin routes and the CLI.
public struct OutboxOperations: Sendable {
    /// Page sizes of ``list(status:limit:after:)``.
    public struct Limits: Sendable, Hashable {
        /// When the caller gives no limit. Default 100.
        public var defaultPageSize: Int = 100
        /// Largest page a caller may ask for. Default 1,000.
        public var maximumPageSize: Int = 1000

        public init() {}
    }

    let store: any Store
    let log: EventLog
    let clock: any LifecycleClock
    /// Rung after a retry so the dispatcher picks the message up without waiting for its next poll.
    let committed: WakeSignal
    public var limits: Limits

    public init(context: ServiceContext, limits: Limits = Limits()) {
        store = context.store
        log = context.log
        clock = context.clock
        committed = context.outboxSignal
        self.limits = limits
    }

    /// Messages in id order after `after`, of one status or all: `{"messages": […], "next": id|null}`, where
    /// `next` is the `after` of the following page (null on the last one).
    public func list(status: OutboxStatus?, limit: Int?, after: Int64?) async throws -> JSONValue {
        let limit = limit ?? limits.defaultPageSize
        guard (1...limits.maximumPageSize).contains(limit) else {
            throw AdminError.badRequest(.invalidLimit, "limit must be 1...\(limits.maximumPageSize)")
        }
        let messages = try await AdminError.mappingStoreFailures(log: log) {
            try await store.read { reader in try reader.outbox(status: status, limit: limit, afterID: after) }
        }
        let next: JSONValue = messages.count == limit ? messages.last.map { .integer($0.id) } ?? .null : .null
        return [
            "messages": .array(messages.map { AdminDocuments.outboxMessage($0, includePayload: true) }), "next": next,
        ]
    }

    /// Sends a `dead` message back to `pending` with a fresh retry schedule; answers the message as it is now.
    /// - Throws: ``AdminError`` `unknown_message` (404), `not_dead` (409) for a pending or delivered one.
    public func retry(id: Int64) async throws -> JSONValue {
        let now = clock.now()
        let message = try await AdminError.mappingStoreFailures(log: log) {
            try await store.write { writer -> Result<OutboxMessage, AdminError> in
                guard let message = try writer.outboxMessage(id: id) else {
                    return .failure(AdminError(status: 404, code: .unknownMessage, "no outbox message \(id)"))
                }
                guard message.status == .dead, try writer.retryOutbox(id: id, now: now) else {
                    return .failure(
                        AdminError(
                            status: 409, code: .notDead,
                            "message \(id) is \(message.status.rawValue); only dead messages are retried"))
                }
                return .success(try writer.outboxMessage(id: id) ?? message)
            }.get()
        }
        committed.notify()
        log.log(.info, "outbox.retry", app: message.app, [("id", .integer(id)), ("kind", .string(message.kind))])
        return AdminDocuments.outboxMessage(message, includePayload: false)
    }
}
