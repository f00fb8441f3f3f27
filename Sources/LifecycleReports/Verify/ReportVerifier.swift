import Foundation
import LifecycleCrypto

/// `lifecycle report verify`: checks, offline and with nothing but the public key, that every report under a
/// directory is the one that was signed. For each app's `manifest.jsonl`, line by line: the signature and
/// key id, the sequence number, the hash chain to the line before, then the SHA-256 of every file the line
/// lists; that no report file lies there without a line (the trace of a deleted last line); then the app's
/// transparency log, its inclusion of every report and the receipts (``ReportLogVerifier``), and, given a
/// checkpoint the auditor kept, that the log only grew since. Stops at the first broken item and names it.
public enum ReportVerifier {
    /// The first thing that does not verify: a manifest line or a report file, and what is wrong with it.
    public struct Broken: Error, Hashable, Sendable, CustomStringConvertible {
        public var item: String
        public var problem: String
        public var description: String { "\(item): \(problem)" }
    }

    public struct Outcome: Sendable {
        /// Manifest lines (reports) that verified before the first broken item, if any.
        public var verifiedReports: Int
        public var manifests: [String]
        public var broken: Broken?
        /// Per app whose log verified: its log directory, tree size, receipts and note verifier key.
        public var logs: [VerifiedLog] = []
    }

    /// One app's transparency log that verified.
    public struct VerifiedLog: Sendable {
        public var directory: String
        public var treeSize: UInt64
        public var receipts: Int
        /// `<origin>+<key ID>+<base64 key>`, the key string outside C2SP verifiers take.
        public var verifierKey: String
        /// True when the auditor's kept checkpoint was this log's and the current one extends it.
        public var keptCheckpointChecked: Bool
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Verifies `directory`: an app's report directory (holding `manifest.jsonl`) or the reports root
    /// (every sub-directory holding one, in name order).
    /// `keptCheckpoint`: a checkpoint file the auditor kept from an earlier visit (path and bytes); it is
    /// checked against the log whose origin its first line names.
    public static func verify(
        directory: String, publicKey: Ed25519PublicKey, keptCheckpoint: (path: String, bytes: [UInt8])? = nil
    ) throws -> Outcome {
        let manifests = try manifestDirectories(directory)
        let keyID = try ReportKeys.signingKeyID(publicKey)
        var outcome = Outcome(verifiedReports: 0, manifests: manifests.map { $0 + "/" + ReportManifestLine.fileName })
        let keptOrigin = keptCheckpoint.flatMap { ReportLogVerifier.origin(ofCheckpoint: $0.bytes) }
        for appDirectory in manifests {
            switch verifyApp(
                appDirectory, publicKey: publicKey, keyID: keyID, kept: keptCheckpoint, keptOrigin: keptOrigin,
                verified: &outcome.verifiedReports)
            {
            case .failure(let broken):
                outcome.broken = broken
                return outcome
            case .success(let log):
                outcome.logs.append(
                    VerifiedLog(
                        directory: appDirectory + "/" + ReportLogEntries.logDirectory, treeSize: log.treeSize,
                        receipts: log.receipts, verifierKey: log.verifierKey,
                        keptCheckpointChecked: log.keptCheckpointChecked))
            }
        }
        if let keptCheckpoint, !outcome.logs.contains(where: \.keptCheckpointChecked) {
            outcome.broken = Broken(
                item: keptCheckpoint.path,
                problem: "a checkpoint of log \"\(keptOrigin ?? "?")\", which is none of the logs verified here")
        }
        return outcome
    }

    private static func manifestDirectories(_ directory: String) throws -> [String] {
        let manager = FileManager.default
        if manager.fileExists(atPath: directory + "/" + ReportManifestLine.fileName) { return [directory] }
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else {
            throw Failure(description: "\(directory): not a readable directory")
        }
        let found = names.sorted().map { directory + "/" + $0 }.filter {
            manager.fileExists(atPath: $0 + "/" + ReportManifestLine.fileName)
        }
        guard !found.isEmpty else {
            throw Failure(description: "\(directory): no \(ReportManifestLine.fileName) here or in a sub-directory")
        }
        return found
    }

    private static func verifyApp(
        _ appDirectory: String, publicKey: Ed25519PublicKey, keyID: String, kept: (path: String, bytes: [UInt8])?,
        keptOrigin: String?, verified: inout Int
    ) -> Result<ReportLogVerifier.Verified, Broken> {
        var manifest: [(line: ReportManifestLine, text: [UInt8])] = []
        if let broken = verifyManifest(
            appDirectory, publicKey: publicKey, keyID: keyID, manifest: &manifest, verified: &verified)
        {
            return .failure(broken)
        }
        // The app the signed lines name, not the directory's name (`report verify .` inside it).
        let app = manifest.first?.line.app ?? String(appDirectory.split(separator: "/").last ?? "")
        return ReportLogVerifier.verify(
            appDirectory: appDirectory, app: app, manifest: manifest, publicKey: publicKey,
            kept: keptOrigin == ReportLogEntries.origin(app: app) ? kept : nil)
    }

    private static func verifyManifest(
        _ appDirectory: String, publicKey: Ed25519PublicKey, keyID: String,
        manifest: inout [(line: ReportManifestLine, text: [UInt8])], verified: inout Int
    ) -> Broken? {
        let manifestPath = appDirectory + "/" + ReportManifestLine.fileName
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            return Broken(item: manifestPath, problem: "cannot be read")
        }
        var rawLines = Array(data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if rawLines.last?.isEmpty == true { rawLines.removeLast() }
        var previous = ReportManifestLine.genesis
        var listed = Set<String>()
        for (index, raw) in rawLines.enumerated() {
            let number = index + 1
            let item = "\(manifestPath) line \(number)"
            guard let line = ReportManifestLine(parsing: raw) else {
                return Broken(item: item, problem: "not a manifest line (edited or truncated)")
            }
            guard line.signingKeyID == keyID else {
                return Broken(
                    item: item, problem: "signed with key \(line.signingKeyID), not with the given key \(keyID)")
            }
            guard line.hasValidSignature(publicKey) else {
                return Broken(item: item, problem: "bad signature (the line was changed after signing)")
            }
            guard line.sequence == number else {
                return Broken(
                    item: item,
                    problem:
                        "holds report \(line.sequence) where report \(number) belongs (a line was deleted or reordered)"
                )
            }
            guard line.previousLineSHA256 == previous else {
                return Broken(
                    item: item,
                    problem: number == 1
                        ? "does not start the chain (earlier lines were deleted)"
                        : "does not chain to line \(number - 1) (a line was deleted, inserted or reordered)")
            }
            for file in line.files {
                let path = appDirectory + "/" + file.path
                guard !file.path.hasPrefix("/"), !file.path.split(separator: "/").contains("..") else {
                    return Broken(item: item, problem: "lists a path outside the app's directory: \(file.path)")
                }
                listed.insert(file.path)
                guard let digest = ReportFileReader.sha256Hex(path) else {
                    // The writer names a report's files only once its line is durable: a crash in between leaves
                    // them as temporary files, which the next generate places.
                    if access(path, F_OK) != 0, ReportFileReader.sha256Hex(path + ".tmp") == file.sha256 {
                        return Broken(
                            item: path,
                            problem: "not yet in place (listed on manifest line \(number); a crash came before its "
                                + "rename); the next report generate places it")
                    }
                    return Broken(item: path, problem: "missing (listed on manifest line \(number))")
                }
                guard digest == file.sha256 else {
                    return Broken(
                        item: path, problem: "SHA-256 differs from manifest line \(number) (the file was changed)")
                }
            }
            previous = ReportManifestLine.chainHash(raw)
            manifest.append((line, Array(raw)))
            verified += 1
        }
        for path in reportFiles(appDirectory) where !listed.contains(path) {
            return Broken(
                item: appDirectory + "/" + path,
                problem: "not listed in the manifest (its manifest line was deleted)")
        }
        return nil
    }

    /// Report files under an app directory, relative paths in name order.
    private static func reportFiles(_ appDirectory: String) -> [String] {
        // Read with readdir: the app directory holds a receipt per deletion, and Foundation's enumerator spent
        // more on each of their names than the check below.
        var paths: [String] = []
        ReportFileReader.forEachPath(under: appDirectory) { path in
            let name = path.split(separator: "/").last.map(String.init) ?? path
            if ReportWriter.isReportFile(named: name) { paths.append(path) }
        }
        return paths.sorted()
    }
}
