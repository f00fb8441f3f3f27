import Glibc

/// OpenSSL writes to its socket with plain `write(2)`, which raises SIGPIPE when the peer has gone; the
/// default action kills the whole process. Plain sockets use `MSG_NOSIGNAL`, but for TLS the only general
/// remedy is to ignore SIGPIPE process-wide (write then fails with `EPIPE`, which the transports handle).
/// Called before any TLS session exists; idempotent.
enum BrokenPipe {
    static func ignore() {
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
