import AppleNotifications
import FoundationEssentials
import Glibc
import LifecycleCrypto

/// A locally generated stand-in for Apple's signing key: the private key signs simulated notifications and
/// the JWKS file lets the verifier (`"jwks": "file:…"`) accept them. For development and demos only; the
/// private key is generated on the machine and never committed.
public struct DevKeyPair: Sendable {
    public static let privateKeyFileName = "apple-dev-key.pem"
    public static let jwksFileName = "apple-dev-jwks.json"
    /// Random bytes in a generated `kid` (8 bytes → 11 base64url characters).
    static let keyIDRandomBytes = 8

    public let keyID: String
    public let privateKey: RSAPrivateKey

    public init(keyID: String, privateKey: RSAPrivateKey) {
        self.keyID = keyID
        self.privateKey = privateKey
    }

    public static func generate(keyID: String? = nil, bits: Int = 2048) throws(CryptoError) -> DevKeyPair {
        let kid = keyID ?? "dev-" + Base64URL.encode(SecureRandom.bytes(count: keyIDRandomBytes))
        return DevKeyPair(keyID: kid, privateKey: try RSAPrivateKey.generate(bits: bits))
    }

    public var signer: NotificationSigner { NotificationSigner(privateKey: privateKey, keyID: keyID) }

    /// The public half as a one-key JWKS.
    public func jwks() throws(CryptoError) -> JWKSet {
        JWKSet(keys: [try JWK(keyID: keyID, publicKey: privateKey.publicKey)])
    }

    /// Writes `apple-dev-key.pem` (mode 0600, created so from the start) and `apple-dev-jwks.json` into
    /// `directory`, creating it when missing. Returns both paths.
    @discardableResult
    public func write(to directory: String) throws -> (privateKeyPath: String, jwksPath: String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyPath = directory + "/" + Self.privateKeyFileName
        let jwksPath = directory + "/" + Self.jwksFileName
        try Self.writeFile(keyPath, try privateKey.pemPKCS8(), mode: 0o600)
        try Self.writeFile(jwksPath, try jwks().encoded(), mode: 0o644)
        return (keyPath, jwksPath)
    }

    /// Loads a pair written by ``write(to:)``; the `kid` comes from the JWKS file, whose key must match.
    public static func load(from directory: String) throws -> DevKeyPair {
        let keyPath = directory + "/" + privateKeyFileName
        let jwksPath = directory + "/" + jwksFileName
        guard let pem = FileManager.default.contents(atPath: keyPath) else {
            throw DevKeyPairError("cannot read \(keyPath)")
        }
        guard let jwksBytes = FileManager.default.contents(atPath: jwksPath) else {
            throw DevKeyPairError("cannot read \(jwksPath)")
        }
        let privateKey = try RSAPrivateKey(pem: Array(pem))
        let set = try JWKSet(decoding: Array(jwksBytes))
        let (n, e) = try privateKey.publicKey.jwkComponents()
        guard let jwk = set.keys.first(where: { $0.n == n && $0.e == e }) else {
            throw DevKeyPairError("\(jwksPath) does not contain the public key of \(keyPath)")
        }
        return DevKeyPair(keyID: jwk.keyID, privateKey: privateKey)
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw DevKeyPairError("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        guard fchmod(descriptor, mode) == 0 else { throw DevKeyPairError("cannot set mode on \(path)") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw DevKeyPairError("cannot write \(path): errno \(errno)") }
            offset += written
        }
    }
}
