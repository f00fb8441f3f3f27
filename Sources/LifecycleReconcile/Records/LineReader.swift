import Foundation

/// Reads a file line by line in fixed-size chunks, so memory does not grow with the file. Lines end with LF
/// (a preceding CR is dropped); a line longer than `maximumLineLength` is an error, not an allocation.
package struct LineReader {
    static let chunkSize = 64 * 1024
    static let defaultMaximumLineLength = 64 * 1024

    /// Nil for a reader over bytes already in memory.
    private let handle: FileHandle?
    private let path: String
    private let maximumLineLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    package private(set) var lineNumber = 0

    package init(path: String, maximumLineLength: Int = LineReader.defaultMaximumLineLength) throws(RecordSourceError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RecordSourceError(source: path, problem: "cannot open for reading; check the path and permissions")
        }
        self.handle = handle
        self.path = path
        self.maximumLineLength = maximumLineLength
    }

    /// Lines of `bytes`, under the same rules as a file (for inputs already in memory, and fuzzing).
    package init(bytes: [UInt8], source: String, maximumLineLength: Int = LineReader.defaultMaximumLineLength) {
        handle = nil
        path = source
        self.maximumLineLength = maximumLineLength
        buffer = bytes
        finished = true
    }

    package mutating func nextLine() throws(RecordSourceError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var line = buffer[start..<newline]
                start = newline + 1
                if line.last == 0x0D { line = line.dropLast() }
                lineNumber += 1
                return try checked(line)
            }
            if buffer.count - start > maximumLineLength {
                throw RecordSourceError(
                    source: path, line: lineNumber + 1, problem: "line longer than \(maximumLineLength) bytes")
            }
            if finished {
                guard start < buffer.count else { return nil }
                var line = buffer[start...]
                start = buffer.count
                if line.last == 0x0D { line = line.dropLast() }
                lineNumber += 1
                return try checked(line)
            }
            let chunk: Data
            do {
                chunk = try handle?.read(upToCount: Self.chunkSize) ?? Data()
            } catch {
                throw RecordSourceError(source: path, line: lineNumber + 1, problem: "read failed: \(error)")
            }
            buffer.removeSubrange(0..<start)
            start = 0
            if chunk.isEmpty { finished = true } else { buffer.append(contentsOf: chunk) }
        }
    }

    /// A complete line is held to the limit too: one that ends inside the buffered chunk was returned
    /// whatever its length.
    private func checked(_ line: ArraySlice<UInt8>) throws(RecordSourceError) -> ArraySlice<UInt8> {
        guard line.count <= maximumLineLength else {
            throw RecordSourceError(
                source: path, line: lineNumber, problem: "line longer than \(maximumLineLength) bytes")
        }
        return line
    }
}
