import CMappingGuard
import LifecycleCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Reads report files back (the verifier, and the log's catch-up of a line it did not render) without the
/// copies `FileManager.contents` and `Array(Data)` make: a month's JSON is hundreds of megabytes.
enum ReportFileReader {
    /// The file's bytes, read straight into one array; nil when it cannot be opened or read.
    static func bytes(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        let complete = bytes.withUnsafeMutableBytes { buffer -> Bool in
            while offset < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        // A file that grew since fstat is read as it was then; one that shrank is a failure.
        return complete ? bytes : nil
    }

    /// The SHA-256 (hex) of the file's bytes, read a mebibyte at a time; nil when it cannot be opened or read.
    static func sha256Hex(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let hasher = SHA256.Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return hasher.finishHex() }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// Hands `body` the name of each entry of `directory` (not `.` and `..`) in the order the directory gives
    /// them, as they are read, so a directory of a million files is never listed whole; nothing when it cannot
    /// be opened. `type` is the entry's `d_type` (`DT_DIR`, `DT_REG`, `DT_LNK` …; `DT_UNKNOWN` on a file system
    /// that does not fill it in).
    static func forEachName(in directory: String, _ body: (_ name: String, _ type: UInt8) -> Void) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: pointer.pointee)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { body(name, entry.pointee.d_type) }
        }
    }

    /// Hands `body` the path, relative to `root`, of every entry under it, without following symbolic links
    /// (`root` itself may be one); a directory's own path comes before its entries. Each directory is read
    /// whole and closed before those below it are, so the depth of the tree holds no descriptors open.
    static func forEachPath(under root: String, _ body: (String) -> Void) {
        var pending = [""]
        while let relative = pending.popLast() {
            let directory = relative.isEmpty ? root : root + "/" + relative
            forEachName(in: directory) { name, type in
                let path = relative.isEmpty ? name : relative + "/" + name
                body(path)
                var isDirectory = Int32(type) == DT_DIR
                if Int32(type) == DT_UNKNOWN {
                    var status = stat()
                    isDirectory = lstat(directory + "/" + name, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
                }
                if isDirectory { pending.append(path) }
            }
        }
    }
}

/// A report file mapped read-only (`mmap(2)`), read once in order: a month's JSON is gigabytes, and
/// ``release(before:)`` hands the pages already read back to the kernel, so what stays resident is the
/// window being read, not the file.
///
/// A page the file no longer has (it was truncated while mapped) or the disk cannot deliver would stop the
/// process with SIGBUS; the mapping is guarded instead (`CMappingGuard`): such a page reads as zeros and
/// ``faulted`` turns true, so the reader refuses what it read with one line and the process (`serve`, in a
/// catch-up of the log) lives on.
final class MappedReportFile {
    let bytes: UnsafeBufferPointer<UInt8>
    private var released = 0
    /// The guard's slot for this mapping; -1 when unguarded (empty, or every slot taken).
    private let guardSlot: Int32
    /// Pages are let go in steps of this many bytes.
    private static let step = 1 << 20

    /// The file mapped read-only, for reading once from start to end; nil when it cannot be opened or mapped.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0 else { return nil }
        let count = Int(status.st_size)
        guard count > 0 else {
            bytes = UnsafeBufferPointer(start: nil, count: 0)
            guardSlot = -1
            return
        }
        guard let base = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            return nil
        }
        _ = madvise(base, count, MADV_SEQUENTIAL)
        guardSlot = mapping_guard_register(base, count)
        bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count)
    }

    deinit {
        mapping_guard_unregister(guardSlot)
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }

    /// True once a read of the mapping met a page the file no longer has or the disk could not deliver: what
    /// was read there is zeros, not the file.
    var faulted: Bool { mapping_guard_faulted(guardSlot) != 0 }

    /// Lets the kernel drop the mapped pages wholly before `offset`, once a step's worth has been read; a later
    /// read of them would only fault them in again from the file.
    func release(before offset: Int) {
        guard let base = bytes.baseAddress, offset - released >= Self.step else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = min(offset, bytes.count) / pageSize * pageSize
        guard end > released else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + released), end - released, MADV_DONTNEED)
        released = end
    }

    /// The SHA-256 (hex) of the whole file, its pages let go behind the hash.
    func sha256Hex() -> String {
        let hasher = SHA256.Hasher()
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + Self.step, bytes.count)
            hasher.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end])))
            offset = end
            release(before: offset)
        }
        released = 0
        return hasher.finishHex()
    }
}
