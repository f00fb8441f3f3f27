import FoundationEssentials
import Glibc

/// A fresh directory under the system temp dir, removed with its contents when released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "lifecycle-test") throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TemporaryDirectoryError(errno: errno)
        }
        path = String(cString: created)
    }

    /// `path` joined with `name`.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

public struct TemporaryDirectoryError: Error, Hashable, Sendable {
    public var errno: Int32
}
