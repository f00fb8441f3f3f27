import COpenSSL
import Glibc

extension SHA256 {
    /// The lower-case hex SHA-256 of the file at `path` and its length, read in 1 MiB chunks so a large
    /// database is hashed without holding it in memory. Nil when the file cannot be opened or read.
    public static func fileDigest(path: String) -> (hex: String, byteCount: Int64)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            total += Int64(count)
            let updated = buffer.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, count) }
            guard updated == 1 else { return nil }
        }
        var output = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, length == UInt32(byteCount) else { return nil }
        return (Hex.encode(output), total)
    }
}
