/// What `lifecycle backup` writes next to a copy of the SQLite store (`DEST.manifest.json`), and what
/// `lifecycle restore` checks before it puts the copy in place: which store it came from and when, the schema
/// version it was taken at, and the SHA-256 of every byte of the copy, so a damaged or substituted file is
/// refused instead of restored. The manifest is written last, through a temporary file and a rename, so a
/// backup cut short by a crash has none and is never taken for a complete one.
public struct BackupManifest: Sendable, Hashable {
    /// The value of `format`, so another JSON file is not mistaken for a manifest.
    public static let format = "lifecycle-backup"
    public static let version: Int64 = 1
    /// The manifest of `backupFile` is `backupFile` + this suffix.
    public static let fileSuffix = ".manifest.json"
    /// Bigger than any manifest this build writes; a larger file is refused before it is parsed.
    public static let maximumBytes = 16 * 1024

    /// Random id of this backup, also written to the erasure journal when the copy starts (``ErasureJournalLine/backup(id:at:)``).
    public var id: String
    /// The store's identity: the id its erasure journal was opened with.
    public var store: String
    /// When the copy started: every erasure the journal records from here on is re-applied by a restore.
    public var takenAt: Instant
    public var schemaVersion: Int
    /// Lower-case hex SHA-256 of the copy's bytes.
    public var sha256: String
    public var byteCount: Int64

    public init(id: String, store: String, takenAt: Instant, schemaVersion: Int, sha256: String, byteCount: Int64) {
        self.id = id
        self.store = store
        self.takenAt = takenAt
        self.schemaVersion = schemaVersion
        self.sha256 = sha256
        self.byteCount = byteCount
    }

    public var json: JSONValue {
        [
            "format": .string(Self.format), "version": .integer(Self.version), "backup": .string(id),
            "store": .string(store), "takenAt": .string(takenAt.iso8601),
            "schemaVersion": .integer(Int64(schemaVersion)), "sha256": .string(sha256), "bytes": .integer(byteCount),
        ]
    }

    /// The manifest as written: pretty JSON with a final newline.
    public var text: String { json.serialized(sortedKeys: true, pretty: true) + "\n" }

    /// Parses a manifest file's bytes; the error names the field and what was wrong. Never traps.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<BackupManifest, BackupFileError> {
        guard bytes.count <= maximumBytes else {
            return .failure(BackupFileError("is larger than \(maximumBytes) bytes, not a backup manifest"))
        }
        guard let value = JSONValue.parseIfValid(bytes), let object = value.objectValue else {
            return .failure(BackupFileError("is not a JSON object"))
        }
        guard object["format"]?.stringValue == format else {
            return .failure(BackupFileError("has no \"format\": \"\(format)\""))
        }
        guard object["version"]?.integerValue == version else {
            return .failure(
                BackupFileError("has version \(object["version"]?.serialized() ?? "none"), expected \(version)"))
        }
        guard let id = object["backup"]?.stringValue, BackupIdentifier.isValid(id) else {
            return .failure(BackupFileError("field backup is missing or not an id"))
        }
        guard let store = object["store"]?.stringValue, BackupIdentifier.isValid(store) else {
            return .failure(BackupFileError("field store is missing or not an id"))
        }
        guard let taken = object["takenAt"]?.stringValue, let takenAt = ISO8601Format.parse(taken) else {
            return .failure(BackupFileError("field takenAt is missing or not an RFC 3339 instant"))
        }
        guard let schema = object["schemaVersion"]?.integerValue, schema >= 0, schema <= Int64(Int32.max) else {
            return .failure(BackupFileError("field schemaVersion is missing or not a non-negative integer"))
        }
        guard let sha256 = object["sha256"]?.stringValue, sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            return .failure(BackupFileError("field sha256 is missing or not 64 lower-case hex digits"))
        }
        guard let bytes = object["bytes"]?.integerValue, bytes >= 0 else {
            return .failure(BackupFileError("field bytes is missing or negative"))
        }
        return .success(
            BackupManifest(
                id: id, store: store, takenAt: takenAt, schemaVersion: Int(schema), sha256: sha256, byteCount: bytes))
    }
}

/// Why a manifest or a journal line was refused: the words after the file (or line) it concerns.
public struct BackupFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// The ids of stores and backups: a prefix and 32 lower-case hex digits (128 random bits).
public enum BackupIdentifier {
    public static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "st" || parts[0] == "bk", parts[1].utf8.count == 32 else { return false }
        return parts[1].utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
