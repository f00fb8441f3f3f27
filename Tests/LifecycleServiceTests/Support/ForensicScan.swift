import Foundation
import Glibc

/// Reads files as raw bytes and looks for byte sequences in them, the way someone with a copy of the disk
/// would: no SQL, no page format, every byte of every file (`-wal` and `-shm` included).
enum ForensicScan {
    /// Every regular file directly in `directory`, with its bytes.
    static func files(in directory: String) throws -> [(name: String, bytes: [UInt8])] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().compactMap { name in
            let path = directory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { return nil }
            return (name, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }

    /// The names of the files in which `needle` occurs.
    static func filesContaining(_ needle: [UInt8], in files: [(name: String, bytes: [UInt8])]) -> [String] {
        files.filter { contains($0.bytes, needle) }.map(\.name)
    }

    static func filesContaining(_ needle: String, in files: [(name: String, bytes: [UInt8])]) -> [String] {
        filesContaining(Array(needle.utf8), in: files)
    }

    /// Whether `needle` occurs in `haystack` (`memchr` for the first byte, then `memcmp`: megabytes of
    /// `-wal` scan quickly even in a debug build).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                guard let base = hay.baseAddress, let pinBase = pin.baseAddress else { return false }
                var offset = 0
                let last = hay.count - pin.count
                while offset <= last {
                    guard let found = memchr(base + offset, Int32(pin[0]), last - offset + 1) else { return false }
                    let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + position, pinBase, pin.count) == 0 { return true }
                    offset = position + 1
                }
                return false
            }
        }
    }
}
