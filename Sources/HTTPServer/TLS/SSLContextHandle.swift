import COpenSSL

/// Owns one `SSL_CTX`. `@unchecked Sendable` because the context is fully configured before it is shared and
/// never mutated afterwards; OpenSSL documents `SSL_new` on a shared `SSL_CTX` as thread-safe (its reference
/// count is atomic), which is the only use once built. Every `SSL` created from it holds its own reference,
/// so dropping this handle after a reload leaves existing connections working.
final class SSLContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        SSL_CTX_free(pointer)
    }
}
