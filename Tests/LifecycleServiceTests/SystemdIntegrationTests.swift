import Foundation
import HTTP1
import HTTPServer
import TestSupport
import Testing

/// `serve` under systemd, proved on the real `lifecycle` process: the sd_notify(3) datagrams a
/// `Type=notify` unit waits for, received on a datagram socket of the test's own (a path and an abstract
/// address), READY=1 only once both listeners answer and STOPPING=1 on SIGTERM.
@Suite("serve tells systemd it is ready and stopping, as a real process")
struct ServiceManagerNotificationTests {
    enum Address: String, CaseIterable, CustomStringConvertible {
        case path, abstract
        var description: String { rawValue }
    }

    @Test("READY=1 once both listeners answer, STOPPING=1 on SIGTERM, then exit 0", arguments: Address.allCases)
    func readyThenStopping(address: Address) async throws {
        let fixture = try await ServeFixture()
        let receiver = try NotifySocketReceiver(
            address == .path
                ? fixture.directory.file("notify.sock") : "@lifecycle-test-notify-\(UUID().uuidString.prefix(12))")
        let process = try LifecycleProcess.start(
            ["serve", "--config", fixture.configurationFile], environment: ["NOTIFY_SOCKET": receiver.address],
            standardError: fixture.logFile)
        defer { process.kill(signal: SIGKILL) }

        let ready = try #require(await receiver.receive(timeout: .seconds(30)), "no datagram; log:\n\(fixture.log)")
        #expect(ready.split(separator: "\n").contains("READY=1"), "first message: \(ready)")
        // Ready means ready: both listeners answer the first request, no retry.
        let health = try await fixture.publicClient(timeout: .seconds(5)).get("/healthz")
        #expect(health.status == 200)
        #expect(try await fixture.admin("GET", "/v1/outbox").status == 200)

        process.kill(signal: SIGTERM)
        let stopping = try #require(await receiver.receive(timeout: .seconds(20)), "no STOPPING=1 after SIGTERM")
        #expect(stopping.split(separator: "\n").contains("STOPPING=1"), "message after SIGTERM: \(stopping)")
        #expect(await process.waitForExit() == 0)
        #expect(fixture.logEvents("systemd.notify_failed").isEmpty)
    }

    @Test("a NOTIFY_SOCKET serve cannot speak (vsock) is logged once and serve runs on")
    func badAddressIsLogged() async throws {
        let fixture = try await ServeFixture()
        try await fixture.start(environment: ["NOTIFY_SOCKET": "vsock:2:1234"])
        #expect(try await fixture.publicClient().get("/healthz").status == 200)
        let failures = fixture.logEvents("systemd.notify_failed")
        #expect(failures.count == 1)
        #expect(failures.first?["state"] == "ready")
        #expect(await fixture.stop() == [0])
    }
}

/// `make install` and `make uninstall` from the repository's Makefile, run for real into temporary roots
/// with the built `lifecycle` (INSTALL_BINARY, so no release build runs here), and the installed units
/// checked by `systemd-analyze verify`.
@Suite("make install, make uninstall and the systemd units", .serialized)
struct InstallTests {
    static var make: SystemTool? { SystemTool.find("make") }

    /// `make TARGET VARIABLES…` in the repository root.
    static func make(_ target: String, _ variables: [String: String]) async throws -> (status: Int32, output: String) {
        let make = try #require(Self.make, "make is not installed")
        var arguments = ["-C", OutsideTools.repositoryRoot.path, target]
        for (name, value) in variables.sorted(by: { $0.key < $1.key }) { arguments.append("\(name)=\(value)") }
        return try await make.run(arguments, timeout: .seconds(120))
    }

    static func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        return (enumerator?.compactMap { $0 as? String } ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
    }

    @Test(
        "install into a DESTDIR: the binary runs, the policies validate against the installed configuration, an edited configuration is never overwritten nor uninstalled",
        .enabled(if: InstallTests.make != nil, "make is not installed"))
    func installRunUninstall() async throws {
        let root = try TemporaryDirectory(prefix: "lifecycle-destdir")
        let variables = [
            "DESTDIR": root.path, "PREFIX": "/usr/local", "INSTALL_BINARY": LifecycleProcess.executable.path,
        ]
        let installed = try await Self.make("install", variables)
        #expect(installed.status == 0, "make install: \(installed.output)")
        let expected = [
            "etc/lifecycle/lifecycle.json", "usr/local/bin/lifecycle",
            "usr/local/lib/systemd/system/lifecycle-reconcile.service",
            "usr/local/lib/systemd/system/lifecycle-reconcile.timer",
            "usr/local/lib/systemd/system/lifecycle.service", "usr/local/lib/sysusers.d/lifecycle.conf",
            "usr/local/share/lifecycle/installed-files", "usr/local/share/lifecycle/lifecycle.example.json",
            "usr/local/share/lifecycle/policies/default.json", "usr/local/share/lifecycle/policies/kr-pipa.json",
            "usr/local/share/lifecycle/policies/us-ccpa.json",
        ]
        #expect(Self.files(under: root.path) == expected)

        // The installed binary runs on its own: version, help, and the installed policies checked against
        // the installed configuration's app mappings.
        let lifecycle = SystemTool(path: root.file("usr/local/bin/lifecycle"))
        let version = try await lifecycle.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("lifecycle "), "\(version.output)")
        let help = try await lifecycle.run(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("NOTIFY_SOCKET"))
        let validate = try await lifecycle.run([
            "policy", "validate", root.file("usr/local/share/lifecycle/policies"), "--config",
            root.file("etc/lifecycle/lifecycle.json"),
        ])
        #expect(validate.status == 0, "policy validate: \(validate.output)")

        // The configuration points the service's files at the state directory and the installed policies.
        let config = try String(contentsOfFile: root.file("etc/lifecycle/lifecycle.json"), encoding: .utf8)
        #expect(config.contains("\"url\": \"sqlite:/var/lib/lifecycle/lifecycle.sqlite\""))
        #expect(config.contains("\"masterKeyFile\": \"/var/lib/lifecycle/secrets/master.key\""))
        #expect(config.contains("\"policiesDirectory\": \"/usr/local/share/lifecycle/policies\""))
        #expect(!config.contains("\"var/"), "a relative var/ path would land under /etc/lifecycle, read-only")

        // An operator edits the configuration: a second install keeps it, uninstall keeps it and says so.
        let edited = config.replacingOccurrences(of: "\"port\": 8080", with: "\"port\": 8443")
        #expect(edited != config)
        try edited.write(toFile: root.file("etc/lifecycle/lifecycle.json"), atomically: true, encoding: .utf8)
        let again = try await Self.make("install", variables)
        #expect(again.status == 0)
        #expect(again.output.contains("kept"))
        #expect(try String(contentsOfFile: root.file("etc/lifecycle/lifecycle.json"), encoding: .utf8) == edited)
        let removed = try await Self.make("uninstall", variables)
        #expect(removed.status == 0, "make uninstall: \(removed.output)")
        #expect(removed.output.contains("edited since install"))
        #expect(Self.files(under: root.path) == ["etc/lifecycle/lifecycle.json"])

        // Untouched, the configuration install wrote goes with the rest.
        try FileManager.default.removeItem(atPath: root.file("etc/lifecycle/lifecycle.json"))
        #expect(try await Self.make("install", variables).status == 0)
        #expect(try await Self.make("uninstall", variables).status == 0)
        #expect(Self.files(under: root.path) == [])
    }

    @Test(
        "systemd-analyze verify accepts the installed units, and refuses a broken one",
        .enabled(if: InstallTests.make != nil, "make is not installed"),
        .enabled(
            if: SystemTool.find("systemd-analyze") != nil,
            "systemd-analyze is missing: install Debian's systemd package (make test does)"))
    func unitsVerify() async throws {
        let analyze = try #require(SystemTool.find("systemd-analyze"))
        // A real PREFIX (no DESTDIR): systemd-analyze checks that ExecStart's binary exists at the path the
        // unit names, which under a DESTDIR it would not.
        let root = try TemporaryDirectory(prefix: "lifecycle-prefix")
        let variables = [
            "DESTDIR": "", "PREFIX": root.file("usr"), "CONFDIR": root.file("etc/lifecycle"),
            "INSTALL_BINARY": LifecycleProcess.executable.path,
        ]
        let installed = try await Self.make("install", variables)
        #expect(installed.status == 0, "make install: \(installed.output)")
        let unitDirectory = root.file("usr/lib/systemd/system")
        let units = ["lifecycle.service", "lifecycle-reconcile.service", "lifecycle-reconcile.timer"].map {
            unitDirectory + "/" + $0
        }
        let service = try String(contentsOfFile: units[0], encoding: .utf8)
        #expect(
            service.contains(
                "ExecStart=\(root.file("usr/bin/lifecycle")) serve --config \(root.file("etc/lifecycle/lifecycle.json"))"
            ))
        for setting in [
            "Type=notify", "Restart=on-failure", "User=lifecycle", "StateDirectory=lifecycle", "ProtectSystem=strict",
            "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet=\n",
            "SystemCallFilter=@system-service",
        ] {
            #expect(service.contains(setting), "lifecycle.service lacks \(setting)")
        }
        #expect(try String(contentsOfFile: units[2], encoding: .utf8).contains("Persistent=true"))

        let verified = try await analyze.run(["verify", "--man=no"] + units, environment: ["SYSTEMD_LOG_COLOR": "0"])
        #expect(verified.status == 0, "systemd-analyze verify:\n\(verified.output)")
        #expect(verified.output.isEmpty, "systemd-analyze verify:\n\(verified.output)")

        // The check can fail here: a misspelt type is refused.
        let broken = root.file("broken.service")
        try service.replacingOccurrences(of: "Type=notify", with: "Type=notfy").write(
            toFile: broken, atomically: true, encoding: .utf8)
        let refused = try await analyze.run(["verify", "--man=no", broken])
        #expect(refused.output.contains("notfy"), "a broken unit passed unremarked:\n\(refused.output)")
        #expect(try await Self.make("uninstall", variables).status == 0)
    }
}
