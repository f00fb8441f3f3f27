#if canImport(Glibc)
    import Glibc
#endif

/// A tiled log in a directory on disk, laid out so the directory can be served as the log's URL prefix.
///
/// Writes go to a temporary file that is flushed (`fsync`) and renamed into place, then the directory is
/// flushed, so after a crash each path holds either its old bytes or all of its new ones.
public struct DirectoryTileStore: WritableTileStore {
    /// Largest file ``read(_:)`` accepts: a full entry bundle of 256 maximal entries, with room to spare. A
    /// larger file is refused before it is read, so a hostile directory cannot exhaust memory.
    public static let defaultMaximumFileSize = 32 * 1024 * 1024

    public let directory: String
    public let maximumFileSize: Int

    public init(directory: String, maximumFileSize: Int = DirectoryTileStore.defaultMaximumFileSize) {
        self.directory = directory
        self.maximumFileSize = maximumFileSize
    }

    public func read(_ path: String) throws(TransparencyLogError) -> [UInt8]? {
        let full = try resolve(path)
        let descriptor = open(full, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw TransparencyLogError(.ioFailed, "\(full): cannot open (\(Self.reason()))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw TransparencyLogError(.ioFailed, "\(full): cannot stat (\(Self.reason()))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw TransparencyLogError(.ioFailed, "\(full): not a regular file")
        }
        guard info.st_size <= maximumFileSize else {
            throw TransparencyLogError(.ioFailed, "\(full): \(info.st_size) bytes exceeds the \(maximumFileSize) limit")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw TransparencyLogError(.ioFailed, "\(full): cannot read (\(Self.reason()))") }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[..<count])
            guard bytes.count <= maximumFileSize else {
                throw TransparencyLogError(.ioFailed, "\(full): grew past the \(maximumFileSize) byte limit while read")
            }
        }
        return bytes
    }

    public func write(_ path: String, _ bytes: [UInt8]) throws(TransparencyLogError) {
        let full = try resolve(path)
        let parent = String(full[..<(full.lastIndex(of: "/") ?? full.startIndex)])
        try Self.makeDirectories(parent)
        let temporary = full + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw TransparencyLogError(.ioFailed, "\(temporary): cannot create (\(Self.reason()))")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = Self.reason()
                close(descriptor)
                unlink(temporary)
                throw TransparencyLogError(.ioFailed, "\(temporary): cannot write (\(reason))")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let reason = Self.reason()
            close(descriptor)
            unlink(temporary)
            throw TransparencyLogError(.ioFailed, "\(temporary): cannot flush (\(reason))")
        }
        close(descriptor)
        guard rename(temporary, full) == 0 else {
            let reason = Self.reason()
            unlink(temporary)
            throw TransparencyLogError(.ioFailed, "\(full): cannot rename into place (\(reason))")
        }
        try Self.syncDirectory(parent)
    }

    /// Runs `body` holding an exclusive `flock(2)` on `<directory>/.lock`, so two appenders (the scheduled
    /// report and a manual one) never extend the log from the same size.
    public func withExclusiveLock<Result>(
        _ body: () throws(TransparencyLogError) -> Result
    ) throws(TransparencyLogError) -> Result {
        try Self.makeDirectories(directory)
        let path = directory + "/.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TransparencyLogError(.ioFailed, "\(path): cannot open (\(Self.reason()))") }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw TransparencyLogError(.ioFailed, "\(path): cannot lock (\(Self.reason()))")
        }
        return try body()
    }

    /// Joins `path` to the directory, refusing absolute paths and `..` so a name can never leave the log.
    private func resolve(_ path: String) throws(TransparencyLogError) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !path.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." })
        else { throw TransparencyLogError(.invalidArgument, "\"\(path)\" is not a relative path inside the log") }
        return directory + "/" + path
    }

    private static func makeDirectories(_ path: String) throws(TransparencyLogError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw TransparencyLogError(.ioFailed, "\(prefix): cannot create the directory (\(reason()))")
            }
            prefix += "/"
        }
    }

    private static func syncDirectory(_ path: String) throws(TransparencyLogError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TransparencyLogError(.ioFailed, "\(path): cannot open (\(reason()))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw TransparencyLogError(.ioFailed, "\(path): cannot flush (\(reason()))")
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
