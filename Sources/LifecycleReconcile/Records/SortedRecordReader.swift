import Foundation
import LifecycleCore

/// Puts any record stream in `sub` order (UTF-8 byte order, as the merge needs) with bounded memory: an
/// external merge sort. Up to `runSize` records are sorted in memory; a longer input is written as sorted
/// runs to temporary files and merged back with a small heap, so memory grows with `runSize`, not with the
/// number of records. The temporary files are removed when the reader is done or deinitialised.
final class SortedRecordReader: AppRecordReader {
    static let defaultRunSize = 200_000

    private var inMemory: [AppRecord] = []
    private var inMemoryIndex = 0
    private var runs: [JSONLinesRecordReader] = []
    private var heads: [AppRecord?] = []
    private var directory: String?

    init<Source: AppRecordReader>(_ source: Source, runSize: Int = SortedRecordReader.defaultRunSize) throws {
        var source = source
        var buffer: [AppRecord] = []
        buffer.reserveCapacity(min(runSize, 1 << 16))
        var runPaths: [String] = []
        while let record = try source.next() {
            buffer.append(record)
            if buffer.count == runSize {
                runPaths.append(try writeRun(&buffer))
            }
        }
        if runPaths.isEmpty {
            inMemory = buffer.sorted { SubjectOrder.precedes($0.subject, $1.subject) }
            return
        }
        if !buffer.isEmpty { runPaths.append(try writeRun(&buffer)) }
        runs = try runPaths.map { path throws(RecordSourceError) in try JSONLinesRecordReader(path: path) }
        heads = try runs.indices.map { index in try runs[index].next() }
    }

    deinit { removeTemporaryFiles() }

    private func writeRun(_ buffer: inout [AppRecord]) throws -> String {
        if directory == nil {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "lifecycle-reconcile-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            directory = path
        }
        buffer.sort { SubjectOrder.precedes($0.subject, $1.subject) }
        let path = "\(directory!)/run-\(runs.count + heads.count)-\(UUID().uuidString).jsonl"
        var text = ""
        text.reserveCapacity(buffer.count * 64)
        for record in buffer {
            var object: JSONObject = ["sub": .string(record.subject)]
            if let status = record.status { object["status"] = .string(status) }
            if let sessions = record.sessions { object["sessions"] = .integer(Int64(sessions)) }
            text += JSONValue.object(object).serialized() + "\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        buffer.removeAll(keepingCapacity: true)
        return path
    }

    func next() throws -> AppRecord? {
        if runs.isEmpty {
            guard inMemoryIndex < inMemory.count else { return nil }
            defer { inMemoryIndex += 1 }
            return inMemory[inMemoryIndex]
        }
        // Runs are few (input size / runSize), so a linear scan for the smallest head is enough.
        var smallest: Int?
        for index in heads.indices {
            guard let head = heads[index] else { continue }
            if let current = smallest, let best = heads[current],
                !SubjectOrder.precedes(head.subject, best.subject)
            {
                continue
            }
            smallest = index
        }
        guard let index = smallest else {
            removeTemporaryFiles()
            return nil
        }
        let record = heads[index]
        heads[index] = try runs[index].next()
        return record
    }

    private func removeTemporaryFiles() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        directory = nil
    }
}
