/// Appends entries to a tiled log in a directory and publishes its new signed checkpoint.
///
/// One ``append(_:)``: lock the directory; open the current `checkpoint` with the signer's own key; read the
/// right edge from the partial tiles and check it rebuilds the checkpoint's root (a log never extends tiles
/// that disagree with what it signed); write the new tiles and entry bundles; then, last, the new
/// checkpoint. A crash before the checkpoint leaves the previous one valid, and the next append rewrites
/// only files no checkpoint refers to.
public struct LogPublisher: Sendable {
    /// The checkpoint's path inside the log directory (c2sp.org/tlog-tiles §Checkpoints).
    public static let checkpointPath = "checkpoint"

    public let store: DirectoryTileStore
    public let origin: String
    public let signer: NoteSigner

    /// `origin` is the checkpoint's first line; c2sp.org/tlog-checkpoint asks the key name to match it, so
    /// build `signer` with the same name.
    public init(directory: String, origin: String, signer: NoteSigner) {
        store = DirectoryTileStore(directory: directory)
        self.origin = origin
        self.signer = signer
    }

    /// What one append published.
    public struct Appended: Sendable {
        /// Log index of the first appended entry; the others follow in order.
        public var firstIndex: UInt64
        public var checkpoint: SignedCheckpoint
        /// Paths written, relative to the log directory, checkpoint last.
        public var paths: [String]
    }

    /// The current signed checkpoint, or nil for a log that has none yet.
    public func currentCheckpoint() throws(TransparencyLogError) -> SignedCheckpoint? {
        guard let bytes = try store.read(Self.checkpointPath) else { return nil }
        return try SignedCheckpoint.open(bytes, origin: origin, trusting: [signer.verifierKey])
    }

    /// Appends `entries` in order. They are read once, one at a time, and each tile and entry bundle is
    /// written as soon as it is full, so a sequence that makes its entries as it goes (a report's million
    /// leaves) is never in memory at once.
    ///
    /// `beforeCheckpoint` runs once every tile and bundle is written and before the checkpoint is signed: a
    /// throw there leaves the log as a crash at that point would (the previous checkpoint in force, the files
    /// past it rewritten by the next append). A caller whose entries are made as they are read checks there
    /// that every one was made from what it should have been.
    public func append<Entries: Sequence<[UInt8]>>(
        _ entries: Entries, beforeCheckpoint: () throws(TransparencyLogError) -> Void = {}
    ) throws(TransparencyLogError) -> Appended {
        try store.withExclusiveLock { () throws(TransparencyLogError) -> Appended in
            let current = try currentCheckpoint()
            let size = current?.checkpoint.size ?? 0
            var state = try TileLogState(size: size, store: store)
            let root = current?.checkpoint.rootHash ?? .emptyTree
            guard state.rootHash == root else {
                throw TransparencyLogError(
                    .rootMismatch,
                    "\(store.directory): the partial tiles of size \(size) give root \(state.rootHash), the checkpoint "
                        + "says \(root); the log is refusing to extend tiles that disagree with what it signed")
            }
            var paths: [String] = []
            func publish(_ file: TileFile) throws(TransparencyLogError) {
                // Same bytes already there (a retried append): nothing to do.
                if try store.read(file.path.path) == file.bytes { return }
                try store.write(file.path.path, file.bytes)
                paths.append(file.path.path)
            }
            for file in try state.append(entries, full: publish) { try publish(file) }
            try beforeCheckpoint()
            let signed = try SignedCheckpoint.sign(
                Checkpoint(origin: origin, size: state.size, rootHash: state.rootHash), with: signer)
            try store.write(Self.checkpointPath, signed.bytes)
            paths.append(Self.checkpointPath)
            return Appended(firstIndex: size, checkpoint: signed, paths: paths)
        }
    }

    /// Makes tlog-proof receipts against the current checkpoint: the checkpoint is read and its signature
    /// checked once, and one tile reader (with its cache of recent tiles) serves every proof, so a report's
    /// million receipts read each tile about once. Asking in index order, up or down, is what makes the cache
    /// hit.
    public func prover() throws(TransparencyLogError) -> LogProver {
        guard let current = try currentCheckpoint() else {
            throw TransparencyLogError(.invalidArgument, "\(store.directory) has no checkpoint yet")
        }
        return LogProver(checkpoint: current, reader: TileHashReader(store: store, treeSize: current.checkpoint.size))
    }

    /// A tlog-proof receipt for the entry at `index` against the current checkpoint. `extra` travels with it
    /// unauthenticated (for example the entry itself, so the receipt stands alone).
    public func receipt(index: UInt64, extra: [UInt8]? = nil) throws(TransparencyLogError) -> LogProof {
        try prover().receipt(index: index, extra: extra)
    }
}

/// Receipts against one signed checkpoint (``LogPublisher/prover()``).
public struct LogProver: Sendable {
    public let checkpoint: SignedCheckpoint
    let reader: TileHashReader

    /// A tlog-proof receipt for the entry at `index`; `extra` travels with it unauthenticated.
    public func receipt(index: UInt64, extra: [UInt8]?) throws(TransparencyLogError) -> LogProof {
        let proof = try reader.tree.inclusionProof(index: index, size: checkpoint.checkpoint.size)
        return LogProof(extra: extra, index: index, hashes: proof.hashes, checkpoint: checkpoint.bytes)
    }
}
