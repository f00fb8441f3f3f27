import Foundation
import Testing

/// Fresh `lifecycle dev-setup` directories, one real `dev-setup` run per test process.
///
/// `dev-setup` generates an RSA-2048 key for the stand-in Apple signer, which costs more CPU than every other
/// command a test runs in it together; the suites that need a dev directory per test (dozens of them) spent
/// most of their time there. The first caller runs the real command into a template; every caller gets its
/// own copy (store, keys and configuration included, permissions kept), so tests stay independent while the
/// key is generated once. What `dev-setup` itself writes is tested by the tests that run it.
enum DevSetupDirectory {
    private static let template = Task<String, any Error> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dev-setup-template-\(getpid())-\(UUID().uuidString)"
        ).path
        let setup = try await LifecycleProcess.run(["dev-setup", "--directory", directory])
        guard setup.status == 0 else { throw SetupFailed(description: "dev-setup: \(setup)") }
        return directory
    }

    struct SetupFailed: Error, CustomStringConvertible { var description: String }

    /// A new directory named `<prefix>-<UUID>` in the temporary directory holding a copy of the template.
    static func make(prefix: String) async throws -> String {
        let source = try await template.value
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
            .path
        try FileManager.default.copyItem(atPath: source, toPath: directory)
        return directory
    }
}
