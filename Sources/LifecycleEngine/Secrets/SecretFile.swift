import Foundation
import LifecycleCrypto

/// Secrets live in files (mode 0600) or the environment, never in `lifecycle.json` itself.
package enum SecretFile {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// The secret from environment variable `variable` when set, else the trimmed contents of `path`.
    package static func read(path: String?, variable: String, environment: [String: String]) throws -> [UInt8]? {
        if let value = environment[variable], !value.isEmpty { return Array(value.utf8) }
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "\(path): cannot read secret file; create it (mode 0600) or set \(variable)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw Failure(description: "\(path): secret file is empty; write the secret into it or set \(variable)")
        }
        return Array(text.utf8)
    }

    /// Reads the key at `path`, or creates it with `byteCount` random bytes (hex, mode 0600) when absent, so a
    /// fresh installation works without a manual step while the key stays stable across restarts.
    package static func readOrCreate(path: String, byteCount: Int = 32) throws -> [UInt8] {
        if FileManager.default.fileExists(atPath: path) {
            return try read(path: path, variable: "", environment: [:]) ?? []
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = Hex.encode(SecureRandom.bytes(count: byteCount))
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw Failure(description: "\(path): cannot create key file; check the directory's permissions")
        }
        return Array(key.utf8)
    }
}
