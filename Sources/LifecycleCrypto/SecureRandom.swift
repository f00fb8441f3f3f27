import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes(3)`), seeded by the OS.
public enum SecureRandom {
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let status = output.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // Without randomness no identifier or key is safe to issue: stop rather than continue weakly.
        precondition(status == 1, "RAND_bytes failed: \(OpenSSLErrorQueue.drain())")
        return output
    }
}
