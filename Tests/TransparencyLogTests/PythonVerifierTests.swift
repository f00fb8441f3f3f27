import Foundation
import TestSupport
import Testing

@testable import TransparencyLog

/// A verifier written in Python from the specifications alone (`Verifier/tlog_verify.py`, standard library
/// only, its own Ed25519) reads the directory the Swift publisher wrote. It shares no code with the Swift
/// side and recomputes roots and audit paths with different algorithms, so agreement is evidence about the
/// format, not about one implementation checking itself.
@Suite(
    "Independent Python verifier reads what the Swift publisher wrote",
    .enabled(if: ExternalProcess.find("python3") != nil, "python3 is not on PATH"))
struct PythonVerifierTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Verifier/tlog_verify.py").path

    static func verify(_ arguments: [String]) async throws -> ExternalProcess.Result {
        try await ExternalProcess.run(ExternalProcess.find("python3")!, [script] + arguments)
    }

    /// A log grown in three appends, with a kept first checkpoint and receipts written as files.
    static func publishedLog() throws -> (LogFixture, kept: String, receipts: [String]) {
        var log = try LogFixture()
        try log.append(5)
        let kept = log.directory.file("kept-checkpoint")
        try Data(log.checkpoints[0].bytes).write(to: URL(fileURLWithPath: kept))
        try log.append(300)
        try log.append(300)
        var arguments: [String] = []
        for index: UInt64 in [0, 4, 255, 256, 604] {
            let receipt = try log.publisher.receipt(index: index, extra: log.entries[Int(index)])
            let receiptPath = log.directory.file("entry-\(index).tlog-proof")
            let entryPath = log.directory.file("entry-\(index).json")
            try Data(receipt.bytes).write(to: URL(fileURLWithPath: receiptPath))
            try Data(log.entries[Int(index)]).write(to: URL(fileURLWithPath: entryPath))
            arguments += ["--receipt", receiptPath, "--entry", entryPath]
        }
        return (log, kept, arguments)
    }

    @Test(
        "the checkpoint signature, the tiles' root, every tile and entry, five receipts and the kept checkpoint all verify"
    )
    func verifiesSwiftLog() async throws {
        let (log, kept, receipts) = try Self.publishedLog()
        let result = try await Self.verify(
            ["--log", log.path, "--vkey", log.signer.verifierKey.text, "--origin", LogFixture.origin, "--kept", kept]
                + receipts)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok: checkpoint signed by \(LogFixture.origin)+"), "\(result.output)")
        #expect(result.output.contains("ok: level-0 tiles rebuild the checkpoint root"))
        #expect(result.output.contains("ok: 605 entries hash to their leaves"))
        #expect(result.output.contains("ok: 2 upper-level tile hashes match"), "\(result.output)")
        #expect(result.output.components(separatedBy: "ok: receipt").count - 1 == 5)
        #expect(result.output.contains("ok: the kept checkpoint of size 5 is a prefix of the log"))
    }

    @Test("it fails, naming the problem, on a changed tile, a changed entry, a foreign key and rewritten history")
    func failsOnTampering() async throws {
        let (log, kept, receipts) = try Self.publishedLog()
        let base = ["--log", log.path, "--origin", LogFixture.origin]
        let vkey = ["--vkey", log.signer.verifierKey.text]

        let stranger = try LogFixture()
        let foreign = try await Self.verify(base + ["--vkey", stranger.signer.verifierKey.text])
        #expect(foreign.status == 1)
        #expect(foreign.output.contains("FAIL: no signature by \(LogFixture.origin)+"), "\(foreign.output)")

        var bundle = try log.read("tile/entries/001")
        bundle[10] ^= 0x01
        try log.write("tile/entries/001", bundle)
        let entry = try await Self.verify(base + vkey)
        #expect(entry.status == 1)
        #expect(entry.output.contains("FAIL: tile/entries/001 entry 0 does not hash to its leaf"), "\(entry.output)")
        bundle[10] ^= 0x01
        try log.write("tile/entries/001", bundle)

        var tile = try log.read("tile/0/000")
        tile[0] ^= 0x80
        try log.write("tile/0/000", tile)
        let changed = try await Self.verify(base + vkey + receipts)
        #expect(changed.status == 1)
        #expect(changed.output.contains("FAIL: root mismatch"), "\(changed.output)")
        tile[0] ^= 0x80
        try log.write("tile/0/000", tile)

        // Rewritten history, re-signed with the log's own key: only the kept checkpoint reveals it.
        let forgedDirectory = try LogFixture()
        let forger = LogPublisher(directory: forgedDirectory.path, origin: LogFixture.origin, signer: log.signer)
        var entries = log.entries
        entries[2] = Array("{\"kind\":\"deletion\",\"seq\":2,\"subject\":\"quietly-changed\"}".utf8)
        _ = try forger.append(entries)
        let forgedAlone = try await Self.verify(["--log", forgedDirectory.path, "--origin", LogFixture.origin] + vkey)
        #expect(forgedAlone.status == 0, "\(forgedAlone.output)")
        let forged = try await Self.verify(
            ["--log", forgedDirectory.path, "--origin", LogFixture.origin, "--kept", kept] + vkey)
        #expect(forged.status == 1)
        #expect(forged.output.contains("FAIL: rewritten history"), "\(forged.output)")
    }

    @Test("its own Ed25519 accepts golang.org/x/mod's published note and refuses a changed one")
    func goNoteVector() async throws {
        let vectors = try NoteVectors.load()
        let directory = try LogFixture()
        let note = directory.directory.file("peter.note")
        try Data((vectors.text + "\n" + vectors.peterSignature).utf8).write(to: URL(fileURLWithPath: note))
        let good = try await Self.verify(["--note", note, "--vkey", vectors.peterVerifierKey])
        #expect(good.status == 0, "\(good.output)")
        try Data((vectors.text.uppercased() + "\n" + vectors.peterSignature).utf8).write(to: URL(fileURLWithPath: note))
        let bad = try await Self.verify(["--note", note, "--vkey", vectors.peterVerifierKey])
        #expect(bad.status == 1)
        #expect(bad.output.contains("does not verify"), "\(bad.output)")
    }
}
