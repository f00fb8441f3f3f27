import LifecycleCrypto

/// RSA keys generated once per test process: a 2048-bit key takes tens of milliseconds to generate, and
/// hundreds of tests share it. Nothing here is committed; every run has fresh keys.
public enum TestKeys {
    /// The `kid` under which ``rsa2048`` is published in test key sets.
    public static let keyID = "test-key-2048"
    public static let weakKeyID = "test-key-1024"

    public static let rsa2048: RSAPrivateKey = {
        do { return try RSAPrivateKey.generate(bits: 2048) } catch {
            fatalError("cannot generate a test key: \(error)")
        }
    }()

    /// A key below Apple's and RFC 7518's minimum, to prove it is refused.
    public static let rsa1024: RSAPrivateKey = {
        do { return try RSAPrivateKey.generate(bits: 1024) } catch {
            fatalError("cannot generate a test key: \(error)")
        }
    }()

    /// A fresh 2048-bit key, for rotation tests that need a second, distinct key.
    public static func fresh(bits: Int = 2048) -> RSAPrivateKey {
        do { return try RSAPrivateKey.generate(bits: bits) } catch {
            fatalError("cannot generate a test key: \(error)")
        }
    }
}
