import COpenSSL

/// OpenSSL reports failures on a per-thread error queue. Every failed call leaves entries there; reading them
/// (and so clearing the queue) keeps a later, unrelated call from picking up a stale error
/// (SSL_get_error(3): "the current thread's error queue must be empty before the TLS/SSL I/O operation").
package enum OpenSSLErrors {
    /// The queued errors as one line (most recent last), emptying the queue; "no detail" when it was empty.
    package static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            messages.append(text)
        }
        return messages.isEmpty ? "no detail" : messages.joined(separator: "; ")
    }

    package static func clear() {
        ERR_clear_error()
    }
}
