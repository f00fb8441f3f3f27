import Foundation
import LifecycleCrypto
import Synchronization

/// The master keys this process holds: they wrap the subjects' data keys (``SubjectKeyVault``) and are kept
/// outside the database they protect, in `secrets.masterKeyFile` (one 64-hex-digit key per line, mode 0600,
/// created with one fresh key when missing) or in `LIFECYCLE_MASTER_KEY` (the same keys separated by spaces or
/// commas), which wins when set.
///
/// Several keys are held only while a rotation is in progress (`lifecycle keys rotate`): the new one and the
/// one it replaces. Which of them wraps new data keys is decided by the store (``MasterKeyState``), so
/// every instance on a shared database agrees. A key's id is the first 8 bytes of its SHA-256, in hex: it
/// names the key in the database, logs and reports without revealing it.
public final class MasterKeyring: Sendable {
    /// Where the keys come from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        case file(String)
        case environment(String)

        public var description: String {
            switch self {
            case .file(let path): path
            case .environment(let variable): variable
            }
        }
    }

    /// The environment variable that holds the keys instead of the file.
    public static let environmentVariable = "LIFECYCLE_MASTER_KEY"

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public let source: Source
    private let state: Mutex<State>

    private struct State {
        var keys: [(id: String, key: [UInt8])]
        /// What the file looked like when read (size, modification time, inode), to notice a rewrite.
        var fileStamp: FileStamp?
    }

    struct FileStamp: Equatable, Sendable {
        var size: Int64
        var modified: timespec
        var inode: UInt64

        static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
            lhs.size == rhs.size && lhs.inode == rhs.inode && lhs.modified.tv_sec == rhs.modified.tv_sec
                && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }
    }

    /// The keys of `file` (created with one fresh key when missing), or of ``environmentVariable`` when set.
    public static func load(file: String, environment: [String: String]) throws -> MasterKeyring {
        if let text = environment[environmentVariable], !text.isEmpty {
            let keys = try parse(text, source: environmentVariable, separators: " ,\t\n")
            return MasterKeyring(source: .environment(environmentVariable), keys: keys, stamp: nil)
        }
        try createIfMissing(file)
        let (keys, stamp) = try read(file)
        return MasterKeyring(source: .file(file), keys: keys, stamp: stamp)
    }

    init(source: Source, keys: [[UInt8]], stamp: FileStamp?) {
        self.source = source
        state = Mutex(State(keys: keys.map { (Self.id(of: $0), $0) }, fileStamp: stamp))
    }

    /// The id of a master key: hex of the first 8 bytes of its SHA-256.
    public static func id(of key: [UInt8]) -> String { Hex.encode(Array(SHA256.hash(key).prefix(8))) }

    /// The ids of the keys held, in file order.
    public var ids: [String] { state.withLock { $0.keys.map(\.id) } }

    /// The key with this id, if held.
    public func key(id: String) -> [UInt8]? { state.withLock { $0.keys.first { $0.id == id }?.key } }

    /// Whether the file changed since it was read (never for the environment).
    public var fileChanged: Bool {
        guard case .file(let path) = source else { return false }
        let stamp = Self.stamp(path)
        return state.withLock { $0.fileStamp != stamp }
    }

    /// The keys of the source as read at one moment, not yet held: a reload reads them with the rest of the
    /// configuration and the vault holds them (``install(_:)``) only once all of it is put in force, so a
    /// file that does not load changes nothing.
    public struct Contents: Sendable {
        let keys: [[UInt8]]
        let stamp: FileStamp?

        /// The ids of the keys, in file order.
        public var ids: [String] { keys.map(MasterKeyring.id(of:)) }
    }

    /// Reads the source again without changing the keys held: the file as it is now, or, for the
    /// environment (which cannot change in a running process), the keys held.
    public func read() throws -> Contents {
        guard case .file(let path) = source else {
            return state.withLock { Contents(keys: $0.keys.map(\.key), stamp: $0.fileStamp) }
        }
        let (keys, stamp) = try Self.read(path)
        return Contents(keys: keys, stamp: stamp)
    }

    /// Holds `contents` from now on; true when the set of key ids changed.
    @discardableResult
    public func install(_ contents: Contents) -> Bool {
        state.withLock { state in
            let before = state.keys.map(\.id)
            state.keys = contents.keys.map { (Self.id(of: $0), $0) }
            state.fileStamp = contents.stamp
            return before != state.keys.map(\.id)
        }
    }

    /// Reads the file again and holds its keys (a rotation in this process rewrote it, or a data key names a
    /// master key not held); the environment cannot change. Keeps the keys held when the file is unreadable,
    /// and says why.
    @discardableResult
    public func reload() throws -> Bool {
        guard case .file = source else { return false }
        return install(try read())
    }

    /// Replaces the file's keys with `keys`, durably: a temporary file in the same directory is written and
    /// fsynced, renamed over the old one, and the directory fsynced, so a crash leaves the old file or the new
    /// one, never a mix (rename(2) is atomic). A key left out is destroyed as far as this file is concerned.
    /// The environment cannot be written: the operator changes it.
    public func replace(with keys: [[UInt8]]) throws {
        guard case .file(let path) = source else {
            throw Failure(
                description:
                    "\(Self.environmentVariable): the master keys come from the environment; set it to \(keys.map(Self.id(of:)).joined(separator: " and ")) yourself"
            )
        }
        try Self.writeDurably(path: path, text: keys.map { Hex.encode($0) + "\n" }.joined())
        try reload()
    }

    /// Adds a fresh random key to the file (a rotation's first step) and returns its id.
    public func addFreshKey() throws -> String {
        let fresh = SecureRandom.bytes(count: AESGCM.keyByteCount)
        let held = state.withLock { $0.keys.map(\.key) }
        try replace(with: held + [fresh])
        return Self.id(of: fresh)
    }

    // MARK: File format

    static func createIfMissing(_ path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try writeDurably(path: path, text: Hex.encode(SecureRandom.bytes(count: AESGCM.keyByteCount)) + "\n")
    }

    static func read(_ path: String) throws -> (keys: [[UInt8]], stamp: FileStamp?) {
        let stamp = stamp(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(
                description:
                    "\(path): cannot read the master key file; restore it (mode 0600) or set \(environmentVariable)")
        }
        return (try parse(String(decoding: data, as: UTF8.self), source: path, separators: "\n"), stamp)
    }

    /// One 32-byte key per line (or per separator), in hex; a line starting with `#` is a comment.
    static func parse(_ text: String, source: String, separators: String) throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        let parts = text.split(whereSeparator: { separators.contains($0) || $0 == "\r" })
        for (index, part) in parts.enumerated() {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.isEmpty || item.hasPrefix("#") { continue }
            guard item.utf8.count == 64, let key = Hex.decode(item.lowercased()), key.count == AESGCM.keyByteCount
            else {
                throw Failure(
                    description:
                        "\(source): master key \(index + 1) is not 64 hexadecimal digits; write one key per line, e.g. from `openssl rand -hex 32`"
                )
            }
            if !keys.contains(key) { keys.append(key) }
        }
        guard !keys.isEmpty else {
            throw Failure(
                description:
                    "\(source): no master key; write one (openssl rand -hex 32) or remove the file to have one created")
        }
        return keys
    }

    static func stamp(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(size: Int64(info.st_size), modified: info.st_mtim, inode: UInt64(info.st_ino))
    }

    static func writeDurably(path: String, text: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let temporary = path + ".tmp-\(getpid())"
        let bytes = Array(text.utf8)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(
                description: "\(path): cannot write the master key file (\(String(cString: strerror(errno))))")
        }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure(
                description: "\(path): cannot write the master key file (\(String(cString: strerror(errno))))")
        }
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}
