import Foundation
import LifecycleCore
import TestSupport
import Testing

/// The reconcile run lock between real `lifecycle reconcile` processes: a run that is alive is named with its
/// lease when another is refused; one killed with `kill -9` holds nothing, so the next run starts at once.
@Suite("The reconcile lock of a killed run")
struct ReconcileLockTests {
    @Test(
        "kill -9 of lifecycle reconcile mid-run, then an immediate second run succeeds; while it lived, the refusal named it"
    )
    func killedRunReleasesTheLock() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(records: ["type": "jsonl", "path": "records.jsonl"])])
        let records = fixture.directory.file("records.jsonl")
        // A FIFO nobody closes: the first run reads it and waits mid-run, holding the lock, until killed.
        #expect(mkfifo(records, 0o600) == 0)
        let writer = open(records, O_RDWR | O_CLOEXEC)
        #expect(writer >= 0)
        defer { close(writer) }
        _ = #"{"sub": "000777.unknown.0777"}\#n"#.withCString { Glibc.write(writer, $0, strlen($0)) }

        let runLog = fixture.directory.file("first-run.log")
        let first = try LifecycleProcess.start(
            ["reconcile", "--config", fixture.configurationFile, "--log-level", "info"], standardError: runLog)
        defer { first.kill(signal: SIGKILL) }
        let started = await eventually(timeout: .seconds(15)) {
            ((try? String(contentsOfFile: runLog, encoding: .utf8)) ?? "").contains("\"reconcile.started\"")
        }
        try #require(started, "the first run began")

        let refused = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.errorLines.count == 1, "one line: \(refused.errors)")
        let line = String(refused.errorLines.first ?? "")
        #expect(line.contains(":\(first.process.processIdentifier):"), "names the holder host:pid:start: \(line)")
        #expect(line.contains("until"), "says until when: \(line)")

        first.kill(signal: SIGKILL)
        _ = await first.waitForExit()
        unlink(records)
        try #"{"sub": "000777.unknown.0777"}"#.write(toFile: records, atomically: true, encoding: .utf8)

        let second = try await fixture.lifecycle(["reconcile", "--config", fixture.configurationFile, "--json"])
        #expect(second.status == 0, "the lock of the killed run is taken over at once: \(second)")
        #expect(second.errors.isEmpty, "no log lines without --log-level: \(second.errors)")
        let report = JSONValue.parseIfValid(Array(second.output.utf8))
        let findings = report?["apps"]?.arrayValue?.first?["findings"]?.arrayValue ?? []
        #expect(findings.contains { $0["code"] == "unknown-to-service" }, "\(second.output)")
    }
}
