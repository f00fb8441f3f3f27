import Synchronization

/// Connections across all event loops: those open now (for the connection cap) and every one admitted since
/// start.
final class ConnectionCounter: Sendable {
    let value = Atomic<Int>(0)
    let admitted = Atomic<Int>(0)
}
