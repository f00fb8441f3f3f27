import LifecycleCrypto
import LifecycleEngine

#if canImport(Glibc)
    import Glibc
#endif

/// A report file written as it is rendered: text goes through a buffer to a temporary file and into a
/// running SHA-256; ``seal()`` makes it durable and ``publish()`` renames it into place, so a reader never
/// sees half a report and a large month's file is never held whole in memory. The writer seals all three
/// files of a report and checks them, writes the line naming them, and only then publishes them: a report
/// that fails before its line leaves no file under a report's name. A file that fails (a full disk, a file
/// size limit) or is never published leaves no temporary file behind, unless it was kept
/// (``keepTemporaryFile()``) for the next write to place.
///
/// A failed rename leaves the kept temporary file for the next write.
///
/// `@unchecked Sendable`: a sink is used by one thread at a time, the one that renders into it and then the
/// writer's, which takes it once that thread is done (`DispatchQueue.concurrentPerform` returns after it).
final class ReportFileSink: @unchecked Sendable {
    /// Bytes gathered before one `write(2)`.
    static let bufferSize = 1 << 20

    let path: String
    private let temporary: String
    private var descriptor: Int32
    private let hasher = SHA256.Hasher()
    private var buffer: [UInt8] = []
    /// The first write's `errno` when one failed; later writes are skipped.
    private var failure: Int32?
    private var state = State.writing

    /// Where the temporary file stands; the sink removes it when it goes in `writing` or `sealed`.
    private enum State {
        /// Open, taking bytes.
        case writing
        /// Complete and durable, still to be kept or removed.
        case sealed
        /// The manifest line naming the file may be on disk: it stays, under its name or as the temporary file
        /// the next write places.
        case kept
        /// Renamed into place, or removed after a failure.
        case done
    }

    init(path: String) throws {
        self.path = path
        temporary = path + ".tmp"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ReportWriter.Failure(
                description: "\(path): cannot write the report file: \(String(cString: strerror(errno)))")
        }
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if state == .writing || state == .sealed { unlink(temporary) }
    }

    func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.bufferSize { flush() }
    }

    func append(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { flush() }
    }

    private func flush() {
        buffer.withUnsafeBytes { hasher.update($0) }
        if failure == nil && !DurableFile.writeAll(descriptor, buffer) { failure = errno }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left, makes it durable (`fsync`) and closes it; returns its SHA-256 (hex).
    func seal() throws -> String {
        flush()
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        descriptor = -1
        if let failure {
            unlink(temporary)
            state = .done
            throw ReportWriter.Failure(
                description: "\(path): cannot write the report file: \(String(cString: strerror(failure)))")
        }
        state = .sealed
        return hasher.finishHex()
    }

    /// From now on the temporary file stays whatever happens: the manifest line naming it is being written, and
    /// the next write gives it its name if this one cannot (``ReportWriter``).
    func keepTemporaryFile() {
        precondition(state == .sealed, "a report file is sealed before it is kept")
        state = .kept
    }

    /// The line naming the file was not written after all (the append was undone): the temporary file goes.
    func discardTemporaryFile() {
        precondition(state == .kept, "only a kept report file is discarded")
        state = .sealed
    }

    /// Renames the sealed file into place, after the manifest line naming it is durable; ``ReportWriter`` makes
    /// the rename durable (the directory's `fsync`). The bytes and the temporary name were durable before the
    /// line, so a power loss never leaves a signed line naming bytes that never reached the disk.
    func publish() throws {
        precondition(state == .kept, "a report file is kept, its line written, before it is published")
        guard rename(temporary, path) == 0 else {
            throw ReportWriter.Failure(
                description: "\(path): cannot rename into place: \(String(cString: strerror(errno)))")
        }
        state = .done
    }
}
