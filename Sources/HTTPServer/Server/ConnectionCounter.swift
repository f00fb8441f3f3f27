import Synchronization

/// Open connections across all event loops, for the connection cap.
final class ConnectionCounter: Sendable {
    let value = Atomic<Int>(0)
}
