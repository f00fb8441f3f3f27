/// How the server wraps each accepted socket: plain TCP (the default) or TLS with a `TLSServerContext`.
///
/// Set `HTTPServerConfiguration.transport = .tls(context)` to serve HTTPS; the event loop is unchanged.
public struct ConnectionTransportFactory: Sendable {
    private enum Kind: Sendable {
        case plain
        case tls(TLSServerContext)
    }

    private let kind: Kind

    /// Plain HTTP over TCP.
    public static let plain = ConnectionTransportFactory(kind: .plain)

    /// HTTPS: each connection gets a new `SSL` from the context's current certificate (so a `reload()` applies
    /// to connections accepted afterwards).
    public static func tls(_ context: TLSServerContext) -> ConnectionTransportFactory {
        ConnectionTransportFactory(kind: .tls(context))
    }

    /// Whether bytes written straight to a fresh socket are readable HTTP (false for TLS, where the server must
    /// not answer an over-capacity connection with a plaintext 503).
    public var speaksPlainHTTP: Bool {
        if case .plain = kind { return true }
        return false
    }

    /// The TLS context when this factory serves HTTPS.
    public var tlsContext: TLSServerContext? {
        if case .tls(let context) = kind { return context }
        return nil
    }

    /// Wraps an accepted non-blocking socket; nil when no TLS session could be created (the caller closes the
    /// socket).
    func makeTransport(fileDescriptor: Int32) -> (any ConnectionTransport)? {
        switch kind {
        case .plain:
            return PlainSocketTransport(fileDescriptor: fileDescriptor)
        case .tls(let context):
            guard let session = context.makeSession() else { return nil }
            return TLSTransport(fileDescriptor: fileDescriptor, session: session)
        }
    }
}
