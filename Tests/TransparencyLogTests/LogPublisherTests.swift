import Foundation
import LifecycleCrypto
import Testing

@testable import TransparencyLog

/// The publisher writes a C2SP tiled log into a directory; the auditor checks it as an outsider would and names
/// what was tampered with.
@Suite("Log directory: publish, receipts, audit, tampering")
struct LogPublisherTests {
    @Test("a published log audits clean at every size, and every entry's receipt verifies")
    func publishAndAudit() throws {
        var log = try LogFixture()
        for count in [1, 2, 300, 255, 700] {
            let appended = try log.append(count)
            #expect(appended.firstIndex == UInt64(log.entries.count - count))
            #expect(appended.paths.last == "checkpoint")
            let report = log.auditor.audit(keptCheckpoint: log.checkpoints.first?.bytes)
            #expect(report.isValid, "\(report.problems)")
            #expect(report.entriesChecked == UInt64(log.entries.count))
        }
        #expect(log.checkpoints.last?.checkpoint.size == 1258)
        let reference = MerkleTree(source: LeafHashList(entries: log.entries))
        #expect(log.checkpoints.last?.checkpoint.rootHash == (try reference.rootHash(size: 1258)))
        for index in stride(from: UInt64(0), to: 1258, by: 37) {
            let receipt = try log.publisher.receipt(index: index, extra: log.entries[Int(index)])
            let signed = try log.auditor.verifyReceipt(receipt.bytes)
            #expect(signed.checkpoint.size == 1258)
            // The receipt stands alone: parsing its text gives the same proof back.
            #expect(try LogProof(parsing: receipt.bytes) == receipt)
            // Another entry at that index is not included.
            let error = #expect(throws: TransparencyLogError.self) {
                try log.auditor.verifyReceipt(receipt.bytes, entry: log.entries[Int((index + 1) % 1258)])
            }
            #expect(error?.code == .inclusionFailed)
        }
    }

    @Test("the files on disk are the C2SP layout: checkpoint, full and partial tiles, entry bundles")
    func layout() throws {
        var log = try LogFixture()
        try log.append(70_000 - 1)
        try log.append(1)
        let files = Set(
            try FileManager.default.subpathsOfDirectory(atPath: log.path).filter {
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: log.path + "/" + $0, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            })
        for expected in [
            "checkpoint", "tile/0/000", "tile/0/272", "tile/0/273.p/112", "tile/1/000", "tile/1/001.p/17",
            "tile/2/000.p/1", "tile/entries/000", "tile/entries/272", "tile/entries/273.p/112",
        ] {
            #expect(files.contains(expected), "\(expected)")
        }
        #expect(files.contains("tile/0/273.p/111"))  // kept for the checkpoint of size 69,999
        #expect(!files.contains { $0.contains(".tmp") })
        #expect(try log.read("tile/0/000").count == 8192)
        #expect(try log.read("tile/1/001.p/17").count == 17 * 32)
        let text = String(decoding: try log.read("checkpoint"), as: UTF8.self)
        #expect(text.hasPrefix("\(LogFixture.origin)\n70000\n"))
        #expect(text.contains("\n\n\u{2014} \(LogFixture.origin) "))
    }

    @Test("a changed leaf hash in a full tile is named by tile, the tile above and the entry")
    func tamperedLevel0Tile() throws {
        var log = try LogFixture()
        try log.append(600)
        var tile = try log.read("tile/0/001")
        tile[5 * 32] ^= 0x01
        try log.write("tile/0/001", tile)
        let report = log.auditor.audit()
        #expect(!report.isValid)
        let messages = report.problems.map(\.description)
        #expect(
            messages.contains { $0.contains("tile/0/001 does not hash to hash 1 of tile/1/000.p/2") }, "\(messages)")
        #expect(messages.contains { $0.contains("tile/entries/001 entry 5 (log index 261)") }, "\(messages)")
    }

    @Test("a changed entry is named by bundle, position and log index")
    func tamperedEntry() throws {
        var log = try LogFixture()
        try log.append(300)
        var bundle = try TileContent.parseEntryBundle(
            try log.read("tile/entries/001.p/44"), path: TilePath(kind: .entries, index: 1, width: 44))
        bundle[3] = Array("{\"kind\":\"deletion\",\"seq\":259,\"subject\":\"someone-else\"}".utf8)
        try log.write("tile/entries/001.p/44", try TileContent.entryBundle(bundle))
        let report = log.auditor.audit()
        #expect(report.problems.map(\.code) == [.tileMismatch])
        #expect(report.problems.first?.description.contains("tile/entries/001.p/44 entry 3 (log index 259)") == true)
    }

    @Test("tiles rewritten consistently but not re-signed give a root mismatch naming both roots")
    func rewrittenTilesUnsigned() throws {
        var log = try LogFixture()
        try log.append(10)
        // Rebuild the whole directory from changed entries, keeping the signed checkpoint.
        let checkpoint = try log.read("checkpoint")
        var changedEntries = log.entries
        changedEntries[4] = Array("{\"kind\":\"deletion\",\"seq\":4,\"subject\":\"rewritten\"}".utf8)
        var state = TileLogState.empty
        for file in try state.append(changedEntries) { try log.write(file.path.path, file.bytes) }
        try log.write("checkpoint", checkpoint)
        let report = log.auditor.audit()
        #expect(report.problems.map(\.code) == [.rootMismatch])
        #expect(report.problems.first?.description.contains("for size 10") == true)
    }

    @Test("a log that rewrote its history and re-signed is caught by the checkpoint the auditor kept")
    func rewrittenHistoryResigned() throws {
        let key = try Ed25519PrivateKey.generate()
        var honest = try LogFixture(key: key)
        try honest.append(40)
        let kept = honest.checkpoints.last!.bytes  // the auditor's copy at size 40
        try honest.append(30)

        // The operator rebuilds the log with entry 17 changed, appends more, and signs with the same key.
        let forged = try LogFixture(key: key)
        var entries = honest.entries
        entries[17] = Array("{\"kind\":\"deletion\",\"seq\":17,\"subject\":\"quietly-changed\"}".utf8)
        _ = try forged.publisher.append(Array(entries[..<50]))
        _ = try forged.publisher.append(Array(entries[50...]))
        #expect(forged.auditor.audit().isValid)  // on its own the forged log is well formed

        let report = forged.auditor.audit(keptCheckpoint: kept)
        #expect(report.problems.map(\.code) == [.rewrittenHistory])
        #expect(report.problems.first?.description.contains("checkpoint sizes 40 and 70") == true, "\(report.problems)")
        #expect(honest.auditor.audit(keptCheckpoint: kept).isValid)
    }

    @Test("a log that shrank is rewritten history")
    func shrankLog() throws {
        var log = try LogFixture()
        try log.append(20)
        let later = log.checkpoints.last!.bytes
        try log.append(5)
        // Put the size-20 checkpoint back as current and present the size-25 one as kept.
        let current = try log.read("checkpoint")
        try log.write("checkpoint", later)
        let report = log.auditor.audit(keptCheckpoint: current)
        #expect(report.problems.map(\.code) == [.rewrittenHistory])
        #expect(report.problems.first?.description.contains("size 25") == true)
    }

    /// The verifier checks a report's receipts with the checkpoints it already opened: that must still refuse a
    /// wrong entry, and a receipt whose checkpoint bytes differ in any way must be opened (and checked) anew.
    @Test("receipts checked against already opened checkpoints still refuse a wrong entry or a forged checkpoint")
    func receiptsWithOpenedCheckpoints() throws {
        var log = try LogFixture()
        try log.append(40)
        var opened: [[UInt8]: SignedCheckpoint] = [:]
        for index in UInt64(0)..<40 {
            let receipt = try log.publisher.receipt(index: index, extra: log.entries[Int(index)])
            #expect(try log.auditor.verifyReceipt(receipt, opened: &opened).checkpoint.size == 40)
            let error = #expect(throws: TransparencyLogError.self) {
                try log.auditor.verifyReceipt(receipt, entry: log.entries[Int((index + 1) % 40)], opened: &opened)
            }
            #expect(error?.code == .inclusionFailed)
        }
        #expect(opened.count == 1)
        // The same proof against a checkpoint with one byte of its signature changed: not taken from `opened`.
        var forged = try log.publisher.receipt(index: 7, extra: log.entries[7])
        forged.checkpoint[forged.checkpoint.count - 3] ^= 0x01
        #expect(throws: TransparencyLogError.self) { try log.auditor.verifyReceipt(forged, opened: &opened) }
        #expect(opened.count == 1)
        // A checkpoint opened elsewhere is not accepted for a receipt against another one.
        let signed = try #require(opened.values.first)
        try log.append(1)
        let later = try log.publisher.receipt(index: 7, extra: log.entries[7])
        #expect(throws: TransparencyLogError.self) { try later.verify(entry: log.entries[7], against: signed) }
    }

    @Test("a checkpoint signed by another key, or for another origin, is refused before any tile is read")
    func wrongKeyOrOrigin() throws {
        var log = try LogFixture()
        try log.append(3)
        let stranger = try NoteVerifierKey(
            name: LogFixture.origin, publicKey: try Ed25519PrivateKey.generate().publicKey)
        let report = LogAuditor(directory: log.path, origin: LogFixture.origin, trusting: [stranger]).audit()
        #expect(report.checkpoint == nil)
        #expect(report.problems.map(\.code) == [.noTrustedSignature])
        let other = LogAuditor(directory: log.path, origin: "reports.example/other", trusting: [log.signer.verifierKey])
            .audit()
        #expect(other.problems.map(\.code) == [.originMismatch])
    }

    @Test("a missing tile is named; the publisher refuses to extend tiles that disagree with its checkpoint")
    func missingTile() throws {
        var log = try LogFixture()
        try log.append(300)
        try FileManager.default.removeItem(atPath: log.path + "/tile/0/001.p/44")
        let report = log.auditor.audit()
        #expect(report.problems.contains { $0.code == .tileMissing && $0.description.contains("tile/0/001.p/44") })
        #expect(throws: TransparencyLogError.self) { try log.append(1) }
        try log.write("tile/0/001.p/44", Array(repeating: 7, count: 44 * 32))
        let error = #expect(throws: TransparencyLogError.self) { try log.append(1) }
        #expect(error?.code == .rootMismatch || error?.code == .tileMismatch)
    }

    @Test("an append retried after a crash before the checkpoint rewrites only unreferenced files")
    func crashBeforeCheckpoint() throws {
        var log = try LogFixture()
        try log.append(250)
        let checkpoint = try log.read("checkpoint")
        // A crashed append of other entries: its tiles are on disk, its checkpoint never was.
        _ = try log.publisher.append((0..<20).map { Array("crashed \($0)".utf8) })
        try log.write("checkpoint", checkpoint)
        let appended = try log.append(30)
        #expect(appended.firstIndex == 250)
        #expect(appended.paths.contains("tile/0/000"))  // the crashed run's full tile held other entries
        #expect(log.auditor.audit(keptCheckpoint: checkpoint).isValid)
    }

    @Test("an empty log publishes the empty tree's root and audits clean")
    func emptyLog() throws {
        let log = try LogFixture()
        let appended = try log.publisher.append([])
        #expect(appended.checkpoint.checkpoint.size == 0)
        #expect(appended.checkpoint.checkpoint.rootHash == .emptyTree)
        #expect(log.auditor.audit().isValid)
        #expect(throws: TransparencyLogError.self) { try log.publisher.receipt(index: 0) }
    }

    @Test("appends from several threads at once are serialised by the directory lock; none is lost")
    func concurrentAppends() throws {
        let log = try LogFixture()
        let publisher = log.publisher
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for batch in 0..<5 {
                _ = try? publisher.append((0..<7).map { Array("worker \(worker) batch \(batch) entry \($0)".utf8) })
            }
        }
        let report = log.auditor.audit()
        #expect(report.isValid, "\(report.problems)")
        #expect(report.checkpoint?.checkpoint.size == 4 * 5 * 7)
    }

    @Test("the directory store refuses paths that leave the log")
    func pathsStayInside() throws {
        let log = try LogFixture()
        for path in ["../escape", "/etc/passwd", "tile/../../x", "", "tile//0"] {
            #expect(throws: TransparencyLogError.self, "\(path)") { try log.store.read(path) }
            #expect(throws: TransparencyLogError.self, "\(path)") { try log.store.write(path, [1]) }
        }
    }
}
