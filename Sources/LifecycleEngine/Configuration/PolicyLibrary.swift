import Foundation
import LifecycleCore
import LifecycleCrypto

/// The policies directory (`policiesDirectory`, default `policies/`): every `*.json` file validated by
/// ``PolicyValidator`` and indexed by its `id`. Problems are one line each naming the file, field and fix,
/// as `lifecycle policy validate` prints them and start-up refuses them.
public struct PolicyLibrary: Sendable {
    public var directory: String
    /// Valid policies by `id`.
    public var policies: [String: ErasurePolicy]
    /// The file each valid policy was read from, by `id`.
    public var files: [String: String]
    /// Every problem found, one line each; empty when every file validates.
    public var problems: [String]
    /// Files that did not validate, by the policy id they declare (their `id` member when it is a string,
    /// else the file name without `.json`): an app naming that id is held up by the file's own problem.
    public var brokenFiles: [String: String] = [:]

    /// Reads and validates every `*.json` file of `directory`, in name order.
    public static func load(directory: String) -> PolicyLibrary {
        var library = PolicyLibrary(directory: directory, policies: [:], files: [:], problems: [])
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
                .sorted()
        } catch {
            library.problems.append(
                "\(directory): cannot read the policies directory; fix: create it or set policiesDirectory")
            return library
        }
        if names.isEmpty {
            library.problems.append("\(directory): no *.json policy files; fix: add one, e.g. default.json")
        }
        for name in names {
            let file = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: file) else {
                library.problems.append("\(file): cannot be read; fix: check its permissions")
                continue
            }
            do {
                let policy = try PolicyValidator.validate(Array(data), file: file)
                if let other = library.files[policy.id] {
                    library.problems.append(
                        "\(file): id: policy id \"\(policy.id)\" is also used by \(other); fix: give each policy its own id"
                    )
                    continue
                }
                library.policies[policy.id] = policy
                library.files[policy.id] = file
            } catch {
                library.problems.append(contentsOf: error.errors.map(\.description))
                let declared = JSONValue.parseIfValid(Array(data))?["id"]?.stringValue
                library.brokenFiles[declared ?? String(name.dropLast(".json".count))] = file
            }
        }
        return library
    }

    /// `id@version#sha256`, frozen on every job planned from `policy`: the hash is over the file's exact
    /// bytes, so any edit, even one that keeps the version, gives a different reference.
    public static func frozenReference(_ policy: ErasurePolicy) -> String {
        "\(policy.reference)#\(SHA256.hexDigest(policy.canonicalBytes))"
    }
}
