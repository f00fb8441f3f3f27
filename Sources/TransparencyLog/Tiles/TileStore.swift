/// Where a tiled log's files live: a directory, an object store, a test's dictionary.
///
/// Paths are relative to the log's prefix: `checkpoint`, `tile/0/000`, `tile/entries/x001/234.p/5`.
public protocol TileStore: Sendable {
    /// The file's bytes, or nil when there is no such file.
    func read(_ path: String) throws(TransparencyLogError) -> [UInt8]?
}

/// A store that can also publish files.
public protocol WritableTileStore: TileStore {
    /// Makes `bytes` the content of `path` so that a reader sees either the old file or the whole new one.
    func write(_ path: String, _ bytes: [UInt8]) throws(TransparencyLogError)
}
