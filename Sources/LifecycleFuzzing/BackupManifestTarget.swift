import LifecycleCore

/// Backup manifests (`DEST.manifest.json`), which `lifecycle restore` reads from disk before it trusts a copy.
///
/// Properties: an accepted manifest's text parses back to the same manifest, and its time formats and parses
/// back.
enum BackupManifestTarget {
    static let target = FuzzTarget(
        name: "backup-manifest",
        summary: "backup manifests: parse-text-parse same manifest, time round-trips",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard case .success(let manifest) = BackupManifest.parse(bytes) else { return }
        guard case .success(let again) = BackupManifest.parse(Array(manifest.text.utf8)) else {
            throw PropertyFailure("the text of an accepted manifest does not parse")
        }
        try require(again == manifest, "a manifest changes through text-parse")
        try require(ISO8601Format.parse(manifest.takenAt.iso8601) == manifest.takenAt, "takenAt does not round-trip")
    }
}
