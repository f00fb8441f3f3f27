import Glibc

/// File-mode reading for the key-file permission test.
enum FileManagerAttributes {
    static func mode(of path: String) throws -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Errno(value: errno) }
        return info.st_mode & 0o777
    }
}

struct Errno: Error {
    var value: Int32
}

extension [UInt8] {
    /// Overwrites `path` with these bytes.
    func write(to path: String) throws {
        guard let file = fopen(path, "wb") else { throw Errno(value: errno) }
        defer { fclose(file) }
        guard fwrite(self, 1, count, file) == count else { throw Errno(value: errno) }
    }
}
