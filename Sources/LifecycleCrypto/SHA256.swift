import COpenSSL

/// SHA-256 (FIPS 180-4): report hash chains, content hashes of policies, JWS signing inputs.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, EVP_sha256(), nil)
        }
        // SHA-256 over memory cannot fail short of memory exhaustion; treat that as fatal like an allocation.
        precondition(status == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
        return output
    }

    public static func hash(_ text: String) -> [UInt8] { hash(Array(text.utf8)) }

    /// Lowercase hexadecimal, the form stored in reports and compared by `report verify`.
    public static func hexDigest(_ bytes: [UInt8]) -> String { Hex.encode(hash(bytes)) }

    public static func hexDigest(_ text: String) -> String { hexDigest(Array(text.utf8)) }
}

extension SHA256 {
    /// SHA-256 over bytes that arrive in pieces (a report file written as it is rendered), with the same
    /// digest as ``SHA256/hash(_:)-([UInt8])`` over their concatenation. One owner; not shared across threads.
    public final class Hasher {
        private let context: OpaquePointer

        public init() {
            guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
            // As hash(_:): SHA-256 cannot fail short of memory exhaustion.
            precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(SHA-256) failed")
            self.context = context
        }

        deinit { EVP_MD_CTX_free(context) }

        public func update(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count > 0 else { return }
            precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "EVP_DigestUpdate failed")
        }

        /// The digest, lowercase hex; the hasher is spent afterwards.
        public func finishHex() -> String {
            var output = [UInt8](repeating: 0, count: SHA256.byteCount)
            var length: UInt32 = 0
            precondition(EVP_DigestFinal_ex(context, &output, &length) == 1, "EVP_DigestFinal_ex failed")
            return Hex.encode(output)
        }
    }
}
