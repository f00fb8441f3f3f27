import Foundation

/// `aics-tlog` (PyPI, Apache-2.0), a C2SP tlog-tiles / tlog-checkpoint / signed-note verifier nobody here
/// wrote. It needs Python 3.12 or later; ``tool`` installs the pinned version into `.build/aics-tlog-venv`
/// once, for every test target that uses it, or says why it cannot be had.
public enum AicsTlog {
    public static let version = "0.2.1"
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let venv = packageRoot.appendingPathComponent(".build/aics-tlog-venv").path

    /// The `aics-tlog` executable, installing it once when needed; or why it cannot be had. A task rather than a
    /// lazily initialised value, so tests waiting for the install suspend instead of blocking their threads.
    public static let tool = Task { await install() }

    public struct SetupFailure: Error, CustomStringConvertible {
        public var description: String
    }

    static func install() async -> Result<String, SetupFailure> {
        let executable = venv + "/bin/aics-tlog"
        if let result = try? await ExternalProcess.run(executable, ["--version"]),
            result.output.trimmingCharacters(in: .whitespacesAndNewlines) == version
        {
            return .success(executable)
        }
        guard let python = await python312() else {
            return .failure(
                SetupFailure(description: "aics-tlog needs Python 3.12 or later; none found on PATH or in pyenv"))
        }
        do {
            try? FileManager.default.removeItem(atPath: venv)
            let created = try await ExternalProcess.run(python, ["-m", "venv", venv])
            guard created.status == 0 else {
                return .failure(SetupFailure(description: "python -m venv failed: \(created.output.suffix(300))"))
            }
            let installed = try await ExternalProcess.run(
                venv + "/bin/pip", ["install", "--quiet", "--disable-pip-version-check", "aics-tlog==\(version)"])
            guard installed.status == 0 else {
                return .failure(
                    SetupFailure(
                        description: "pip install aics-tlog==\(version) failed: \(installed.output.suffix(300))"))
            }
            return .success(executable)
        } catch {
            return .failure(SetupFailure(description: "cannot run \(python): \(error)"))
        }
    }

    /// A Python of version 3.12 or later: on PATH, or one of pyenv's installed versions.
    static func python312() async -> String? {
        let check = ["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)"]
        for name in ["python3.13", "python3.12", "python3"] {
            if let path = ExternalProcess.find(name), (try? await ExternalProcess.run(path, check))?.status == 0 {
                return path
            }
        }
        guard let pyenv = ExternalProcess.find("pyenv"),
            let versions = try? await ExternalProcess.run(pyenv, ["versions", "--bare"])
        else { return nil }
        for version in versions.output.split(separator: "\n").reversed() where version.hasPrefix("3.") {
            guard let minor = Int(version.split(separator: ".")[1]), minor >= 12,
                let prefix = try? await ExternalProcess.run(pyenv, ["prefix", String(version)]), prefix.status == 0
            else { continue }
            let path = prefix.output.trimmingCharacters(in: .whitespacesAndNewlines) + "/bin/python3"
            if (try? await ExternalProcess.run(path, check))?.status == 0 { return path }
        }
        return nil
    }
}
