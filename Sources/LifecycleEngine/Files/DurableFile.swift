import CShims
import Foundation
import Glibc

/// The file operations a backup, a restore, the erasure journal and the reports' receipts need to survive a
/// crash: data reaches the disk before a rename makes it visible (fsync(2), then rename(2), then fsync of the
/// directory, so the new name itself is durable), and a failure names the file and the system's reason.
package enum DurableFile {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    static func failure(_ path: String, _ doing: String) -> Failure {
        Failure(description: "\(path): cannot \(doing) (\(String(cString: strerror(errno))))")
    }

    static func directory(of path: String) -> String {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return directory.isEmpty ? "." : directory
    }

    /// fsync of an existing file.
    static func sync(_ path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, "open it to flush it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure(path, "flush it to disk") }
    }

    /// fsync of the directory holding `path`, so a create, rename or unlink in it is durable.
    package static func syncDirectory(of path: String) throws(Failure) {
        try syncDirectory(directory(of: path))
    }

    /// fsync of `directory` itself.
    package static func syncDirectory(_ directory: String) throws(Failure) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(directory, "open the directory to flush it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure(directory, "flush the directory to disk") }
    }

    /// Renames a flushed file into place and flushes the directory.
    static func publish(_ temporary: String, as path: String) throws(Failure) {
        guard rename(temporary, path) == 0 else { throw failure(path, "rename \(temporary) to it") }
        try syncDirectory(of: path)
    }

    /// Writes `bytes` to a temporary file beside `path`, flushes it and renames it over `path`: a crash leaves
    /// the old file or the whole new one. With `flush` false neither the file nor the directory is flushed: a
    /// caller that writes many files at once makes them durable together with ``syncFileSystem(holding:)``
    /// (an fsync each cost the reports about a millisecond per receipt); a reader still sees the old file or
    /// the whole new one.
    package static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t = 0o600, flush: Bool = true
    ) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(temporary, "create it") }
        let written = writeAll(descriptor, bytes)
        let synced = !flush || fsync(descriptor) == 0
        let closed = close(descriptor) == 0
        guard written, synced, closed else {
            let error = failure(temporary, "write it")
            unlink(temporary)
            throw error
        }
        do throws(Failure) {
            if flush {
                try publish(temporary, as: path)
            } else if rename(temporary, path) != 0 {
                throw failure(path, "rename \(temporary) to it")
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Writes `bytes` to `path` in place, creating it or truncating it first, unflushed. No temporary file and
    /// no rename, so the file keeps its inode and a crash can leave it empty or short: only for a file whose
    /// readers can tell a short one from a whole one and whose writer writes it again after a crash (the
    /// reports' receipts, against a marker that names the last complete set). Made durable, like
    /// ``write(_:to:mode:flush:)`` unflushed, by ``syncFileSystem(holding:)``.
    package static func overwrite(_ bytes: [UInt8], at path: String, mode: mode_t = 0o600) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(path, "create it") }
        let written = writeAll(descriptor, bytes)
        let closed = close(descriptor) == 0
        guard written, closed else { throw failure(path, "write it") }
    }

    /// Flushes every file of the filesystem holding `directory`, and the directory itself: `syncfs(2)`, one
    /// call for the many files written with ``write(_:to:mode:flush:)`` and `flush` false.
    package static func syncFileSystem(holding directory: String) throws(Failure) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(directory, "open the directory to flush it") }
        defer { close(descriptor) }
        guard shim_syncfs(descriptor) == 0, fsync(descriptor) == 0 else {
            throw failure(directory, "flush its filesystem to disk")
        }
    }

    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Copies `source` to `destination` (created, never overwritten) and flushes the copy.
    static func copy(_ source: String, to destination: String) throws(Failure) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure(source, "open it") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw failure(destination, "create it") }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(source, "read it") }
            if count == 0 { break }
            guard writeAll(output, Array(buffer[0..<count])) else { throw failure(destination, "write it") }
        }
        guard fsync(output) == 0 else { throw failure(destination, "flush it to disk") }
    }

    /// Removes `path` if it exists.
    static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure(path, "remove it") }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
