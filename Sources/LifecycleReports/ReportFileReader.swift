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
}
