import LifecycleCore
import LifecycleCrypto

/// One line of `reports/<app>/manifest.jsonl`: the SHA-256 of each file of one report, the SHA-256 of the
/// previous line (a hash chain, as AWS CloudTrail digest files chain to their predecessor: deleting or
/// reordering a line breaks it) and an Ed25519 signature (RFC 8032) over the line's canonical form.
///
/// Canonical form: the line's JSON object without its `signature` member, serialised compactly with members
/// sorted by name (``JSONValue/serialized(sortedKeys:pretty:)``). The line itself is the same serialisation
/// with `signature` (base64url, no padding) included; its SHA-256 over those bytes, without the newline, is
/// what the next line's `previousLineSha256` holds.
public struct ReportManifestLine: Hashable, Sendable {
    /// The `previousLineSha256` of the first line.
    public static let genesis = String(repeating: "0", count: 64)
    public static let fileName = "manifest.jsonl"

    public var sequence: Int
    public var app: String
    public var schema: String
    public var period: ReportPeriod
    public var generatedAt: Instant
    /// Paths relative to the app's directory, with their SHA-256 (hex), in html, json, csv order.
    public var files: [(path: String, sha256: String)]
    /// The JSON report among ``files``: the file a report's log leaves are derived from.
    public var jsonFile: (path: String, sha256: String)? { files.first { $0.path.hasSuffix(".json") } }
    public var previousLineSHA256: String
    public var pseudonymKeyID: String
    public var signingKeyID: String
    /// Base64url Ed25519 signature over ``canonicalForm``; empty before signing.
    public var signature: String

    public init(
        sequence: Int, app: String, schema: String, period: ReportPeriod, generatedAt: Instant,
        files: [(path: String, sha256: String)], previousLineSHA256: String, pseudonymKeyID: String,
        signingKeyID: String, signature: String = ""
    ) {
        self.sequence = sequence
        self.app = app
        self.schema = schema
        self.period = period
        self.generatedAt = generatedAt
        self.files = files
        self.previousLineSHA256 = previousLineSHA256
        self.pseudonymKeyID = pseudonymKeyID
        self.signingKeyID = signingKeyID
        self.signature = signature
    }

    public static func == (lhs: ReportManifestLine, rhs: ReportManifestLine) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    private var unsignedObject: JSONObject {
        [
            "sequence": .integer(Int64(sequence)),
            "app": .string(app),
            "schema": .string(schema),
            "period": ["from": .string(period.from.iso8601), "to": .string(period.to.iso8601)],
            "generatedAt": .string(generatedAt.iso8601),
            "files": .array(files.map { ["path": .string($0.path), "sha256": .string($0.sha256)] }),
            "previousLineSha256": .string(previousLineSHA256),
            "pseudonymKeyId": .string(pseudonymKeyID),
            "signingKeyId": .string(signingKeyID),
        ]
    }

    /// The bytes the signature covers.
    public var canonicalForm: [UInt8] { JSONValue.object(unsignedObject).encoded() }

    /// The line as written to the manifest, without its newline.
    public var text: String {
        var object = unsignedObject
        object["signature"] = .string(signature)
        return JSONValue.object(object).serialized(sortedKeys: true)
    }

    public mutating func sign(with key: Ed25519PrivateKey) throws {
        signature = Base64URL.encode(try key.sign(canonicalForm))
    }

    public func hasValidSignature(_ key: Ed25519PublicKey) -> Bool {
        guard let bytes = Base64URL.decode(signature) else { return false }
        return key.verify(signature: bytes, message: canonicalForm)
    }

    /// SHA-256 (hex) of a line's text, as the next line chains to it.
    public static func chainHash(_ lineText: some Collection<UInt8>) -> String { SHA256.hexDigest(Array(lineText)) }

    /// Reads a line back; nil when it is not a manifest line of this schema.
    public init?(parsing text: some Collection<UInt8>) {
        guard let value = JSONValue.parseIfValid(text), let sequence = value["sequence"]?.integerValue,
            let app = value["app"]?.stringValue, let schema = value["schema"]?.stringValue,
            let from = value["period"]?["from"]?.stringValue.flatMap(ISO8601Format.parse),
            let to = value["period"]?["to"]?.stringValue.flatMap(ISO8601Format.parse),
            let generatedAt = value["generatedAt"]?.stringValue.flatMap(ISO8601Format.parse),
            let fileValues = value["files"]?.arrayValue,
            let previous = value["previousLineSha256"]?.stringValue,
            let pseudonymKeyID = value["pseudonymKeyId"]?.stringValue,
            let signingKeyID = value["signingKeyId"]?.stringValue, let signature = value["signature"]?.stringValue,
            let members = value.objectValue?.keys, members.count == 10
        else { return nil }
        var files: [(path: String, sha256: String)] = []
        for file in fileValues {
            guard let path = file["path"]?.stringValue, let sha = file["sha256"]?.stringValue else { return nil }
            files.append((path, sha))
        }
        self.init(
            sequence: Int(clamping: sequence), app: app, schema: schema, period: ReportPeriod(from: from, to: to),
            generatedAt: generatedAt, files: files, previousLineSHA256: previous, pseudonymKeyID: pseudonymKeyID,
            signingKeyID: signingKeyID, signature: signature)
    }
}
