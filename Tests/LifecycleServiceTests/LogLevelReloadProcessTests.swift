import Foundation
import Glibc
import LifecycleCore
import Testing

/// `serve --help` and README ("`serve` and SIGHUP"): a reload applies the configuration's `logLevel`, and a level
/// asked for with `--log-level` or `LIFECYCLE_LOG_LEVEL` overrides it, also across reloads. Observed in the log
/// of the real process: an accepted notification is an `info` line.
@Suite("serve's log level across SIGHUP")
struct LogLevelReloadProcessTests {
    static func setLogLevel(_ level: String, in fixture: ServeFixture) throws {
        try fixture.updateConfiguration { $0["logLevel"] = .string(level) }
    }

    @Test("a reload that changes logLevel from warning to info starts the info lines")
    func reloadChangesLevel() async throws {
        let fixture = try await ServeFixture()
        try Self.setLogLevel("warning", in: fixture)
        let process = try await fixture.start()
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000321.loglevel.0001"))
                .status == 200)
        #expect(fixture.logEvents("notification.accepted").isEmpty, "info line at level warning")

        try Self.setLogLevel("info", in: fixture)
        try await fixture.reload(process)
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000321.loglevel.0002"))
                .status == 200)
        #expect(fixture.logEvents("notification.accepted").count == 1, "\(fixture.log.suffix(1500))")
        #expect(await fixture.stop() == [0])
    }

    @Test("LIFECYCLE_LOG_LEVEL holds its level over the configuration's, at start and after a reload")
    func environmentOverridesAcrossReloads() async throws {
        let fixture = try await ServeFixture()
        try Self.setLogLevel("info", in: fixture)
        let process = try await fixture.start(environment: ["LIFECYCLE_LOG_LEVEL": "warning"])
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000321.loglevel.0003"))
                .status == 200)
        try Self.setLogLevel("debug", in: fixture)
        try await fixture.reload(process)
        #expect(
            try await fixture.post(fixture.notification(type: "email-disabled", subject: "000321.loglevel.0004"))
                .status == 200)
        // Warnings still come: a body that can never verify is a `notification.rejected` warning.
        let rejected = try await fixture.post(Array(#"{"payload": "not a token"}"#.utf8))
        #expect(rejected.status == 400)
        #expect(await fixture.stop() == [0])
        #expect(fixture.logEvents("notification.accepted").isEmpty, "\(fixture.log.suffix(1500))")
        #expect(fixture.logEvents("notification.rejected").count == 1, "\(fixture.log.suffix(1500))")
    }
}
