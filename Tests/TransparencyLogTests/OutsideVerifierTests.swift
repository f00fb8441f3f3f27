import Foundation
import TestSupport
import Testing

@testable import TransparencyLog

/// `aics-tlog` (PyPI, Apache-2.0), a C2SP tlog-tiles / tlog-checkpoint / signed-note verifier nobody here
/// wrote, judges the directory the Swift publisher wrote. It needs Python 3.12 or later; ``AicsTlog`` installs
/// the pinned version into `.build/aics-tlog-venv` on first use and the test is cancelled, saying why, when no
/// such Python or no network to PyPI is available.
@Suite("Outside verifier: aics-tlog from PyPI reads what the Swift publisher wrote")
struct OutsideVerifierTests {
    static func aicsTlog(_ arguments: [String]) async throws -> ExternalProcess.Result {
        switch await AicsTlog.tool.value {
        case .success(let executable): return try await ExternalProcess.run(executable, arguments)
        case .failure(let failure):
            print("aics-tlog test cancelled: \(failure)")
            try Test.cancel("aics-tlog unavailable: \(failure)")
        }
    }
    @Test(
        "aics-tlog accepts the checkpoint and tiles, an entry's inclusion and the log's consistency with a kept checkpoint"
    )
    func acceptsSwiftLog() async throws {
        var log = try LogFixture()
        try log.append(3)
        let kept = log.directory.file("kept.note")
        try Data(log.checkpoints[0].bytes).write(to: URL(fileURLWithPath: kept))
        try log.append(400)
        try log.append(257)
        let key = ["--log-key", log.signer.verifierKey.text, "--origin", LogFixture.origin]

        let checkpoint = try await Self.aicsTlog(["verify-checkpoint", "--tiles", log.path] + key)
        #expect(checkpoint.status == 0, "\(checkpoint.output)")
        #expect(checkpoint.output.contains("\"tiles_ok\": true"), "\(checkpoint.output)")

        for index in [0, 255, 256, 659] {
            let entry = log.directory.file("entry-\(index)")
            try Data(log.entries[index]).write(to: URL(fileURLWithPath: entry))
            let inclusion = try await Self.aicsTlog(
                ["verify-inclusion", "--tiles", log.path, "--index", String(index), "--leaf", entry] + key)
            #expect(inclusion.status == 0, "index \(index): \(inclusion.output)")
        }

        let consistency = try await Self.aicsTlog(
            ["verify-consistency", "--tiles", log.path, "--old-checkpoint", kept] + key)
        #expect(consistency.status == 0, "\(consistency.output)")
    }

    @Test("aics-tlog refuses a changed tile, a wrong entry and a re-signed rewritten history, as ours does")
    func refusesTampering() async throws {
        var log = try LogFixture()
        try log.append(30)
        let kept = log.directory.file("kept.note")
        try Data(log.checkpoints[0].bytes).write(to: URL(fileURLWithPath: kept))
        let key = ["--log-key", log.signer.verifierKey.text, "--origin", LogFixture.origin]

        let wrongEntry = log.directory.file("wrong-entry")
        try Data(log.entries[6]).write(to: URL(fileURLWithPath: wrongEntry))
        let inclusion = try await Self.aicsTlog(
            ["verify-inclusion", "--tiles", log.path, "--index", "5", "--leaf", wrongEntry] + key)
        #expect(inclusion.status == 1, "\(inclusion.output)")

        // The operator rebuilds the log with one entry changed and signs with the log's own key.
        let forged = try LogFixture()
        var entries = log.entries
        entries[3] = Array("{\"kind\":\"deletion\",\"seq\":3,\"subject\":\"quietly-changed\"}".utf8)
        _ = try LogPublisher(directory: forged.path, origin: LogFixture.origin, signer: log.signer).append(
            entries + entries)
        let alone = try await Self.aicsTlog(["verify-checkpoint", "--tiles", forged.path] + key)
        #expect(alone.status == 0, "\(alone.output)")
        let consistency = try await Self.aicsTlog(
            ["verify-consistency", "--tiles", forged.path, "--old-checkpoint", kept] + key)
        #expect(consistency.status == 1, "\(consistency.output)")
        let ours = LogAuditor(directory: forged.path, origin: LogFixture.origin, trusting: [log.signer.verifierKey])
        #expect(ours.audit(keptCheckpoint: log.checkpoints[0].bytes).problems.map(\.code) == [.rewrittenHistory])

        var tile = try log.read("tile/0/000.p/30")
        tile[40] ^= 0x04
        try log.write("tile/0/000.p/30", tile)
        let changed = try await Self.aicsTlog(["verify-checkpoint", "--tiles", log.path] + key)
        #expect(changed.status == 1, "\(changed.output)")
        #expect(log.auditor.audit().problems.map(\.code) == [.tileMismatch, .rootMismatch])
    }
}
