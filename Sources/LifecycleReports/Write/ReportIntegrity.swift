/// The integrity block of a report, filled by ``ReportWriter`` when the report joins its app's manifest:
/// where it sits in the hash chain (as AWS CloudTrail digest files chain to the previous digest) and which
/// key signs its manifest line. The signature itself lives in the manifest line, which holds this file's
/// SHA-256; a file cannot contain a signature over its own bytes.
public struct ReportIntegrity: Hashable, Sendable {
    /// 1-based position of the report's line in `manifest.jsonl`.
    public var sequence: Int
    /// SHA-256 (hex) of the manifest line before this report's line; 64 zeros for the first report.
    public var previousManifestLineSHA256: String
    /// Key id of the Ed25519 key that signs the manifest line (first 8 bytes of SHA-256 of the raw public
    /// key, hex).
    public var signingKeyID: String
    /// The manifest file name, relative to the app's report directory.
    public var manifest: String

    public init(sequence: Int, previousManifestLineSHA256: String, signingKeyID: String, manifest: String) {
        self.sequence = sequence
        self.previousManifestLineSHA256 = previousManifestLineSHA256
        self.signingKeyID = signingKeyID
        self.manifest = manifest
    }
}
