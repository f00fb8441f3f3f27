import COpenSSL

/// Helpers for OpenSSL memory BIOs, used for PEM input and output.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`. The bytes stay alive for the whole call: a BIO built
    /// inside a bridged-pointer closure that outlives it is a known trap (STYLE.md, interop facts).
    static func reading<Result>(
        _ bytes: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> Result
    ) throws(CryptoError) -> Result {
        let result: Swift.Result<Result, CryptoError> = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                return .failure(.openSSL(.decodingFailed, "cannot allocate a memory BIO"))
            }
            defer { BIO_free(bio) }
            do throws(CryptoError) {
                return .success(try body(bio))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs `write` against a fresh memory BIO and returns everything written.
    static func writing(_ write: (OpaquePointer) -> Int32) throws(CryptoError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw .openSSL(.encodingFailed, "cannot allocate a memory BIO")
        }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .openSSL(.encodingFailed, "cannot write PEM") }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
            if count <= 0 { break }
            output.append(contentsOf: chunk[0..<Int(count)])
        }
        OpenSSLErrorQueue.clear()  // BIO_read on an empty memory BIO queues nothing, but be certain.
        return output
    }
}
