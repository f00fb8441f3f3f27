import Synchronization
import TransparencyLog

/// A tile store in a dictionary, recording every write, for writer and reader tests without a disk.
final class MemoryTileStore: WritableTileStore {
    private let state = Mutex<(files: [String: [UInt8]], writes: [String], reads: Int)>(([:], [], 0))

    func read(_ path: String) throws(TransparencyLogError) -> [UInt8]? {
        state.withLock {
            $0.reads += 1
            return $0.files[path]
        }
    }

    func write(_ path: String, _ bytes: [UInt8]) throws(TransparencyLogError) {
        state.withLock {
            $0.files[path] = bytes
            $0.writes.append(path)
        }
    }

    var writes: [String] { state.withLock { $0.writes } }
    /// How many times ``read(_:)`` was called.
    var reads: Int { state.withLock { $0.reads } }
    var paths: Set<String> { state.withLock { Set($0.files.keys) } }

    func remove(_ path: String) { _ = state.withLock { $0.files.removeValue(forKey: path) } }
}
