import Foundation
import LifecycleCrypto
import LifecycleEngine

/// The two keys of the report pipeline, each in its own file (DESIGN.md §10: secrets live in files):
/// the pseudonym key (HMAC-SHA256 of app and sub) and the Ed25519 signing key of the manifests. Both are
/// created with mode 0600 on first use so a fresh installation signs without a manual step; the signing
/// key's public half is written beside it (`NAME.pub.pem`) for auditors.
public enum ReportKeys {
    /// A key id: the first 8 bytes of SHA-256 of the key material, hex. Names a key without revealing it.
    public static func keyID(_ material: [UInt8]) -> String { Hex.encode(Array(SHA256.hash(material).prefix(8))) }

    /// The pseudonymiser of reports and the id of its key, from `path` (created when absent).
    public static func pseudonymizer(path: String) throws -> (pseudonymizer: KeyedSubjectPseudonymizer, keyID: String) {
        let key = try SecretFile.readOrCreate(path: path)
        return (KeyedSubjectPseudonymizer(key: key), keyID(key))
    }

    /// The key id of an Ed25519 public key (over its 32 raw bytes, RFC 8032 §5.1.5).
    public static func signingKeyID(_ publicKey: Ed25519PublicKey) throws -> String {
        keyID(try publicKey.rawBytes())
    }

    /// Where the public half of the signing key at `path` is written: `x.pem` → `x.pub.pem`.
    public static func publicKeyPath(forSigningKey path: String) -> String {
        (path.hasSuffix(".pem") ? String(path.dropLast(4)) : path) + ".pub.pem"
    }

    /// The Ed25519 signing key at `path` (PKCS#8 PEM). When the file is absent a new key is generated, written
    /// with mode 0600, and its public key written to ``publicKeyPath(forSigningKey:)``.
    public static func signingKey(path: String) throws -> Ed25519PrivateKey {
        if let pem = FileManager.default.contents(atPath: path) {
            do {
                return try Ed25519PrivateKey(pem: Array(pem))
            } catch {
                throw SecretFile.Failure(description: "\(path): not an Ed25519 PKCS#8 PEM private key (\(error))")
            }
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw SecretFile.Failure(description: "\(path): cannot read the signing key; check its permissions")
        }
        let key = try Ed25519PrivateKey.generate()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(try key.pemPKCS8()), attributes: [.posixPermissions: 0o600]),
            FileManager.default.createFile(
                atPath: publicKeyPath(forSigningKey: path), contents: Data(try key.publicKey.pem()),
                attributes: [.posixPermissions: 0o644])
        else {
            throw SecretFile.Failure(description: "\(path): cannot create the signing key; check the directory")
        }
        return key
    }

    /// An Ed25519 public key from a SubjectPublicKeyInfo PEM file.
    public static func publicKey(path: String) throws -> Ed25519PublicKey {
        guard let pem = FileManager.default.contents(atPath: path) else {
            throw SecretFile.Failure(description: "\(path): cannot read the public key")
        }
        do {
            return try Ed25519PublicKey(pem: Array(pem))
        } catch {
            throw SecretFile.Failure(description: "\(path): not an Ed25519 public key PEM (\(error))")
        }
    }
}
