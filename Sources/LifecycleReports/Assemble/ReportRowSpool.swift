import Foundation
import LifecycleCore
import LifecycleEngine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A period's request rows on disk, in report order (event time, then pseudonym, then event type), so that a
/// large month's rows are never all in memory: the collect stage appends each page's rows as it assembles them
/// (in account order), and the renderers read them back one at a time, in report order, as often as they
/// pass over them.
///
/// The file is created and unlinked at once in the directory given (the reports directory, so it lies on the
/// disk the report is written to, not on a `tmpfs`): nothing is left behind when the process ends, however it
/// ends. What stays in memory is 24 bytes per request: its event time and where its record lies.
public final class ReportRowSpool: Sendable {
    struct Entry: Sendable {
        var eventTime: Int64
        var offset: Int64
        var length: Int
    }

    private let descriptor: Int32
    private let entries: [Entry]
    /// Where the file was made, for the one line a read failure gives.
    private let directory: String
    /// The first record that could not be read back, kept until the spool goes (see ``checkRead()``), and
    /// whether there is one: checked before every receipt, on several threads, without taking the lock.
    private let readFailure = Mutex<Failure?>(nil)
    private let failed = Atomic<Bool>(false)

    public var count: Int { entries.count }

    private init(descriptor: Int32, entries: [Entry], directory: String) {
        self.descriptor = descriptor
        self.entries = entries
        self.directory = directory
    }

    deinit { close(descriptor) }

    /// The row at `position` in report order.
    ///
    /// The file is this process's own and unlinked, so a record that does not read back (a short read, an
    /// I/O error, bytes that do not decode) means the disk failed under it. The row is then a stand-in with
    /// no members but its event time, and ``checkRead()`` throws from then on, naming the first such record.
    /// Every step that keeps or answers with what the rows made (a report file kept, the log's checkpoint
    /// signed, a receipt written, the request ledger returned) calls it first, so a stand-in never reaches any
    /// of them, and the process goes on: the next report is made from the store again.
    public func row(at position: Int) -> ReportSubjectRow {
        let entry = entries[position]
        do {
            return try Self.read(descriptor, entry, directory: directory) { bytes throws(Failure) in
                do { return try ReportRowCodec.decode(bytes) } catch {
                    throw Failure(description: "report row spool in \(directory): record \(position) does not decode")
                }
            }
        } catch {
            readFailure.withLock { first in if first == nil { first = error } }
            failed.store(true, ordering: .releasing)
            return Self.standIn(eventTime: entry.eventTime)
        }
    }

    /// Throws the first read failure of ``row(at:)``, if any: call it before keeping anything made from rows.
    public func checkRead() throws(Failure) {
        guard failed.load(ordering: .acquiring) else { return }
        if let failure = readFailure.withLock({ $0 }) { throw failure }
    }

    /// What ``row(at:)`` gives for a record it cannot read: never kept, because ``checkRead()`` throws.
    private static func standIn(eventTime: Int64) -> ReportSubjectRow {
        let at = Instant(millisecondsSinceEpoch: eventTime)
        return ReportSubjectRow(
            pseudonym: "", eventType: "", source: .notification, eventTime: at, receivedAt: at, policy: nil,
            deadline: nil, targets: [], verification: .failed, retained: [], outcome: .failed, onTime: nil,
            completedAt: nil, daysToComplete: nil)
    }

    /// Reads one record and hands its bytes to `body`; a short read or an I/O error throws one line.
    private static func read<Result>(
        _ descriptor: Int32, _ entry: Entry, directory: String,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeTemporaryAllocation(byteCount: max(entry.length, 1), alignment: 8) {
            buffer throws(Failure) -> Result in
            var done = 0
            while done < entry.length {
                let got = pread(
                    descriptor, buffer.baseAddress! + done, entry.length - done, off_t(entry.offset) + off_t(done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    let reason = got == 0 ? "the file ended early" : String(cString: strerror(errno))
                    throw Failure(
                        description: "report row spool in \(directory): cannot read \(entry.length) bytes at "
                            + "\(entry.offset): \(reason)")
                }
                done += got
            }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<entry.length]))
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Appends rows in any order; ``finish()`` orders them. Writes through a 1 MiB buffer.
    public final class Builder {
        private let descriptor: Int32
        private let directory: String
        private var entries: [Entry] = []
        private var buffer: [UInt8] = []
        private var written: Int64 = 0
        private var finished = false

        /// A spool file in the first of `directories` where one can be made (the reports directory, then the
        /// temporary directory for a reader such as the request ledger that may run where reports cannot be
        /// written), unlinked as soon as it is made.
        public init(directories: [String]) throws(Failure) {
            var reasons: [String] = []
            for directory in directories {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    reasons.append("\(directory): cannot create the directory")
                    continue
                }
                var template = Array((directory + "/.report-rows.XXXXXX").utf8CString)
                let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
                guard descriptor >= 0 else {
                    reasons.append("\(directory): " + String(cString: strerror(errno)))
                    continue
                }
                _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                self.descriptor = descriptor
                self.directory = directory
                buffer.reserveCapacity(1 << 20)
                return
            }
            throw Failure(
                description: "cannot create the report's row spool: " + reasons.joined(separator: "; ")
                    + "; fix: make reports.directory writable")
        }

        deinit { if !finished { close(descriptor) } }

        public func append(_ row: ReportSubjectRow) throws(Failure) {
            let start = buffer.count
            ReportRowCodec.encode(row, into: &buffer)
            let length = buffer.count - start
            entries.append(
                Entry(eventTime: row.eventTime.millisecondsSinceEpoch, offset: written + Int64(start), length: length))
            if buffer.count >= 1 << 20 { try flush() }
        }

        /// The rows appended, in report order.
        public func finish() throws(Failure) -> ReportRowSpool {
            try flush()
            finished = true
            let spool = ReportRowSpool(descriptor: descriptor, entries: try ordered(), directory: directory)
            entries = []
            return spool
        }

        /// By event time; the rare requests that share one are put in order by pseudonym and event type, read
        /// back from the file.
        private func ordered() throws(Failure) -> [Entry] {
            var entries = entries
            entries.sort { ($0.eventTime, $0.offset) < ($1.eventTime, $1.offset) }
            var start = 0
            while start < entries.count {
                var end = start + 1
                while end < entries.count, entries[end].eventTime == entries[start].eventTime { end += 1 }
                if end - start > 1 {
                    var keyed: [(pseudonym: String, eventType: String, entry: Entry)] = []
                    for entry in entries[start..<end] {
                        let key = try? ReportRowSpool.read(descriptor, entry, directory: directory) {
                            bytes throws(Failure) in try? ReportRowCodec.leadingKey(bytes)
                        }
                        guard let key = key ?? nil else {
                            throw Failure(description: "\(directory): the report's row spool does not read back")
                        }
                        keyed.append((key.pseudonym, key.eventType, entry))
                    }
                    keyed.sort { ($0.pseudonym, $0.eventType) < ($1.pseudonym, $1.eventType) }
                    entries.replaceSubrange(start..<end, with: keyed.map(\.entry))
                }
                start = end
            }
            return entries
        }

        /// Appends the buffer at the file's end: only this builder writes the file, and reads use `pread`, which
        /// leaves the file offset where the last write put it.
        private func flush() throws(Failure) {
            guard DurableFile.writeAll(descriptor, buffer) else {
                throw Failure(
                    description: "\(directory): cannot write the report's row spool: "
                        + String(cString: strerror(errno)))
            }
            written += Int64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
        }
    }
}
