import Foundation
import Glibc
import LifecycleCore
import LifecycleCrypto
import LifecycleStore

/// `lifecycle backup DEST`: a consistent copy of the SQLite store taken while `serve` runs, and its
/// ``BackupManifest``. The order makes a crash harmless at every point:
/// 1. the erasure journal is opened (created with the store's identity if missing) and a `backup` line is
///    appended and flushed, so the journal provably covers everything after the copy's start;
/// 2. SQLite's online backup API copies the database into `DEST.partial-PID`, which is flushed and renamed to
///    `DEST`;
/// 3. the manifest (with the SHA-256 of `DEST`) is written to a temporary file, flushed and renamed to
///    `DEST.manifest.json`. Until this rename there is no manifest, and a restore refuses the copy.
public enum StoreBackup {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func manifestPath(of backup: String) -> String { backup + BackupManifest.fileSuffix }

    public static func take(
        database: String, destination: String, busyTimeoutMilliseconds: Int32, clock: any LifecycleClock
    ) async throws -> BackupManifest {
        let manifestPath = manifestPath(of: destination)
        guard !DurableFile.exists(destination), !DurableFile.exists(manifestPath) else {
            throw Failure(description: "\(destination) exists; back up to a new file name")
        }
        guard DurableFile.exists(database) else {
            throw Failure(description: "\(database): no store to back up (storage.url)")
        }
        let journal = ErasureJournal(database: database)
        let store = try journal.open(at: clock.now())
        let id = "bk_" + Hex.encode(SecureRandom.bytes(count: 16))
        let takenAt = clock.now()
        try journal.append(.backup(id: id, at: takenAt))
        let partial = destination + ".partial-\(getpid())"
        try DurableFile.remove(partial)
        do {
            let schemaVersion = try await BlockingExecutor.shared.run { () throws -> Int in
                let version = try SQLiteStore.backup(
                    database: database, to: partial, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
                try DurableFile.sync(partial)
                return version
            }
            guard let digest = SHA256.fileDigest(path: partial) else {
                throw DurableFile.failure(partial, "read the copy back")
            }
            try DurableFile.publish(partial, as: destination)
            let manifest = BackupManifest(
                id: id, store: store, takenAt: takenAt, schemaVersion: schemaVersion, sha256: digest.hex,
                byteCount: digest.byteCount)
            try DurableFile.write(Array(manifest.text.utf8), to: manifestPath)
            return manifest
        } catch {
            unlink(partial)
            throw error
        }
    }
}
