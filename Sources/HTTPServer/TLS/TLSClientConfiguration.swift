/// How an outbound connection speaks TLS.
public struct TLSClientConfiguration: Sendable, Hashable {
    /// Name sent in SNI and matched against the certificate; nil uses the connection's host. IP literals are
    /// matched against IP SANs and not sent in SNI (RFC 6066 §3 forbids literal addresses there).
    public var serverName: String?

    /// PEM file of trusted roots; nil trusts the system store (OpenSSL's default verify paths).
    public var trustedCAFile: String?

    public var minimumVersion: TLSProtocolVersion = .tls1_2
    /// Newest version to offer; nil for the newest OpenSSL supports.
    public var maximumVersion: TLSProtocolVersion?

    /// When true (default) the handshake fails unless the chain verifies and the name matches
    /// (`SSL_VERIFY_PEER` with `SSL_set1_host`). When false the handshake completes whatever the certificate,
    /// and `TLSClientSession` reports what verification found: for diagnostics, never for sending data that
    /// matters.
    public var verifiesPeer: Bool = true

    /// Lowers OpenSSL's security level to 0 and offers every cipher, so a probe can offer TLS 1.0/1.1 (which
    /// OpenSSL 3 otherwise refuses to send) or reach a server with a weak certificate in order to report it.
    /// For diagnostics only.
    public var offersLegacyAlgorithms: Bool = false

    /// Lowers OpenSSL's security level to 0 without widening the offered ciphers, so a handshake still
    /// completes with a server whose certificate has a weak key or a SHA-1 signature, in order to report it.
    /// For diagnostics only.
    public var acceptsWeakPeerCertificates: Bool = false

    public init(
        serverName: String? = nil, trustedCAFile: String? = nil, minimumVersion: TLSProtocolVersion = .tls1_2,
        maximumVersion: TLSProtocolVersion? = nil, verifiesPeer: Bool = true, offersLegacyAlgorithms: Bool = false,
        acceptsWeakPeerCertificates: Bool = false
    ) {
        self.acceptsWeakPeerCertificates = acceptsWeakPeerCertificates
        self.serverName = serverName
        self.trustedCAFile = trustedCAFile
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.verifiesPeer = verifiesPeer
        self.offersLegacyAlgorithms = offersLegacyAlgorithms
    }
}
