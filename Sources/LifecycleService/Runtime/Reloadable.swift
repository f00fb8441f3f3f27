import Synchronization

/// A value that is read on every request and replaced on reload (SIGHUP), shared by reference.
final class Reloadable<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var current: Value { storage.withLock { $0 } }

    func replace(with value: Value) { storage.withLock { $0 = value } }
}
