import Foundation
import Glibc
import HTTP1
import HTTPServer
import LifecycleCore

/// Checks that a URL is fit to register as the Sign in with Apple server-to-server notification endpoint
/// (DOMAIN.md §5): Apple's URL rule, DNS, TCP, TLS 1.2+ with the App Transport Security requirements
/// (Apple, NSAppTransportSecurity: forward-secret AEAD suites, SHA-2 signatures, RSA ≥ 2048 / EC ≥ 256, a
/// trusted chain), refusal of TLS 1.0/1.1 (RFC 8996), certificate expiry, and an unsigned probe POST that a
/// correct endpoint rejects quickly with a 4xx.
///
/// It only ever connects to the host and port of the URL it is given.
public struct EndpointChecker: Sendable {
    public var options: EndpointCheckOptions

    /// The body of the probe: shaped like Apple's notification body but not a signed token, so a correct
    /// endpoint rejects it (4xx) without side effects.
    public static let probeBody = Array(#"{"payload":"probe"}"#.utf8)

    /// Every check, in the order they are reported.
    static let checkOrder = [
        "url", "dns", "tcp", "tls", "legacy-protocols", "chain", "host-name", "expiry", "key", "signature", "ats",
        "probe",
    ]

    public init(options: EndpointCheckOptions) {
        self.options = options
    }

    /// Runs every check on the ``BlockingExecutor`` (the checks block on sockets) and returns the report.
    public func run() async -> EndpointCheckReport {
        let checker = self
        return await BlockingExecutor.shared.run { checker.runBlocking() }
    }

    /// The same checks on the calling thread.
    public func runBlocking() -> EndpointCheckReport {
        var items: [EndpointCheckItem] = []
        func finish(skippingWith reason: String) -> EndpointCheckReport {
            let done = Set(items.map(\.id))
            for id in Self.checkOrder where !done.contains(id) {
                items.append(EndpointCheckItem(id: id, status: .skipped, detail: "not checked: \(reason)"))
            }
            return EndpointCheckReport(url: options.url, items: items)
        }

        let url: EndpointURL
        switch EndpointURL.parse(options.url) {
        case .success(let parsed):
            url = parsed
            items.append(EndpointCheckItem(id: "url", status: .pass, detail: "absolute https URL with host and path"))
        case .failure(let error):
            items.append(EndpointCheckItem(id: "url", status: .fail, detail: error.detail, fix: error.fix))
            return finish(skippingWith: "the URL does not meet Apple's rule")
        }

        items.append(resolve(url.host))
        if items.last?.status == .fail { return finish(skippingWith: "the host does not resolve") }

        items.append(connectPlain(url))
        if items.last?.status == .fail { return finish(skippingWith: "no TCP connection") }

        let connection: HTTPClientConnection
        let handshakeStarted = ContinuousClock.now
        do {
            connection = try HTTPClientConnection(
                host: url.host, port: url.port, timeout: options.timeout,
                tls: TLSClientConfiguration(
                    serverName: url.host, trustedCAFile: options.trustedCAFile, verifiesPeer: false,
                    acceptsWeakPeerCertificates: true))
        } catch {
            let elapsed = ContinuousClock.now - handshakeStarted
            items.append(
                EndpointCheckItem(
                    id: "tls", status: .fail,
                    detail: "TLS 1.2+ handshake failed after \(Self.milliseconds(elapsed)): \(Self.describe(error))",
                    fix: "serve a certificate and key on this port with TLS 1.2 or 1.3 and ECDHE AES-GCM suites"))
            items.append(checkLegacyProtocols(url))
            return finish(skippingWith: "no TLS session")
        }
        defer { connection.close() }
        guard let session = connection.tls else { return finish(skippingWith: "no TLS session") }

        items.append(
            EndpointCheckItem(
                id: "tls", status: .pass,
                detail:
                    "\(session.protocolName) with \(session.cipherName), handshake in "
                    + Self.milliseconds(connection.handshakeDuration)))
        // The probe goes over the connection just verified, before the other probes let it idle.
        let probe = sendProbe(connection, url: url)
        items.append(checkLegacyProtocols(url))
        items.append(contentsOf: checkCertificate(session, url: url))
        items.append(checkATS(session))
        items.append(probe)
        return EndpointCheckReport(url: options.url, items: items)
    }

    // MARK: Network steps

    private func resolve(_ host: String) -> EndpointCheckItem {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>?
        let started = ContinuousClock.now
        let status = getaddrinfo(host, nil, &hints, &results)
        let elapsed = ContinuousClock.now - started
        guard status == 0 else {
            return EndpointCheckItem(
                id: "dns", status: .fail, detail: "\(host) does not resolve: \(String(cString: gai_strerror(status)))",
                fix: "publish an A or AAAA record for \(host)")
        }
        defer { freeaddrinfo(results) }
        var addresses: [String] = []
        var cursor = results
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                entry.pointee.ai_addr, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
                == 0
            {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(address) { addresses.append(address) }
            }
        }
        return EndpointCheckItem(
            id: "dns", status: .pass,
            detail: "\(host) → \(addresses.joined(separator: ", ")) in \(Self.milliseconds(elapsed))")
    }

    private func connectPlain(_ url: EndpointURL) -> EndpointCheckItem {
        do {
            let connection = try HTTPClientConnection(host: url.host, port: url.port, timeout: options.timeout)
            defer { connection.close() }
            return EndpointCheckItem(
                id: "tcp", status: .pass,
                detail: "connected to port \(url.port) in \(Self.milliseconds(connection.connectDuration))")
        } catch {
            return EndpointCheckItem(
                id: "tcp", status: .fail, detail: "cannot connect to port \(url.port): \(Self.describe(error))",
                fix: "make sure the server listens on port \(url.port) and the firewall admits Apple's servers")
        }
    }

    /// Offers only TLS 1.0/1.1 (with OpenSSL's security level lowered so the offer really goes out) and
    /// expects the server to refuse.
    private func checkLegacyProtocols(_ url: EndpointURL) -> EndpointCheckItem {
        let legacy = TLSClientConfiguration(
            serverName: url.host, trustedCAFile: options.trustedCAFile, minimumVersion: .tls1_0,
            maximumVersion: .tls1_1, verifiesPeer: false, offersLegacyAlgorithms: true)
        do {
            let connection = try HTTPClientConnection(
                host: url.host, port: url.port, timeout: options.timeout, tls: legacy)
            let accepted = connection.tls?.protocolName ?? "TLS 1.0/1.1"
            connection.close()
            return EndpointCheckItem(
                id: "legacy-protocols", status: .fail,
                detail: "the server accepted \(accepted) (RFC 8996 deprecates it)",
                fix: "allow only TLS 1.2 and 1.3 on this listener")
        } catch HTTPClientError.tlsHandshakeFailed(let reason) {
            return EndpointCheckItem(
                id: "legacy-protocols", status: .pass, detail: "TLS 1.0 and 1.1 refused (\(reason))")
        } catch {
            return EndpointCheckItem(
                id: "legacy-protocols", status: .warning,
                detail: "could not test TLS 1.0/1.1 refusal: \(Self.describe(error))",
                fix: "run the check again; the server did not answer a TLS 1.1 offer")
        }
    }

    private func sendProbe(_ connection: HTTPClientConnection, url: EndpointURL) -> EndpointCheckItem {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "User-Agent": "lifecycle-endpoint-check"]
        let request = HTTPClientRequest(method: "POST", target: url.target, headers: headers, body: Self.probeBody)
        let started = ContinuousClock.now
        let response: HTTPClientResponse
        do {
            response = try connection.send(request)
        } catch {
            let elapsed = ContinuousClock.now - started
            return EndpointCheckItem(
                id: "probe", status: .fail,
                detail:
                    "POST \(url.target) got no response after \(Self.milliseconds(elapsed)): \(Self.describe(error))",
                fix: "make the endpoint answer every POST within a second (4xx for an invalid body)")
        }
        let elapsed = ContinuousClock.now - started
        let summary = "POST \(url.target) with an unsigned probe → \(response.status) in \(Self.milliseconds(elapsed))"
        switch response.status {
        case 500...:
            return EndpointCheckItem(
                id: "probe", status: .fail, detail: summary,
                fix: "the endpoint must reject an invalid notification with a 4xx, not fail with a 5xx")
        case 400..<500 where elapsed > options.slowResponseThreshold:
            return EndpointCheckItem(
                id: "probe", status: .warning, detail: summary + " (slow)",
                fix: "answer within \(Self.milliseconds(options.slowResponseThreshold)); store first, process later")
        case 400..<500:
            return EndpointCheckItem(id: "probe", status: .pass, detail: summary + " (rejected, as it should be)")
        case 300..<400:
            return EndpointCheckItem(
                id: "probe", status: .fail, detail: summary + " (redirect)",
                fix: "register the final URL; a notification endpoint must not redirect")
        default:
            return EndpointCheckItem(
                id: "probe", status: .warning, detail: summary + " (an unsigned body was accepted)",
                fix: "verify the JWS signature before accepting a notification; reject invalid bodies with 400")
        }
    }

    // MARK: Certificate and ATS

    private func checkCertificate(_ session: TLSClientSession, url: EndpointURL) -> [EndpointCheckItem] {
        var items: [EndpointCheckItem] = []
        let store = options.trustedCAFile.map { "the CA file \($0)" } ?? "the system trust store"
        switch session.chainVerification {
        case .trusted:
            items.append(EndpointCheckItem(id: "chain", status: .pass, detail: "the chain verifies against \(store)"))
        case .untrusted(let reason):
            items.append(
                EndpointCheckItem(
                    id: "chain", status: .fail, detail: "the chain does not verify against \(store): \(reason)",
                    fix: reason.contains("expired")
                        ? "renew the expired certificate (see the expiry check) and serve the renewed chain"
                        : "serve the full chain (leaf, then intermediates) issued by a publicly trusted CA"))
        }
        guard let certificate = session.peerCertificate else {
            items.append(
                EndpointCheckItem(
                    id: "host-name", status: .fail, detail: "the server sent no certificate",
                    fix: "configure a certificate on the listener"))
            return items
        }
        let name = certificate.commonName.map { " (CN \($0))" } ?? ""
        items.append(
            session.hostNameMatches
                ? EndpointCheckItem(id: "host-name", status: .pass, detail: "the certificate\(name) covers \(url.host)")
                : EndpointCheckItem(
                    id: "host-name", status: .fail, detail: "the certificate\(name) does not cover \(url.host)",
                    fix: "issue a certificate whose subjectAltName includes \(url.host)"))

        let now = Date()
        let days = certificate.daysUntilExpiry(at: now)
        let until = Self.day(certificate.notAfter)
        if certificate.isExpired(at: now) {
            items.append(
                EndpointCheckItem(
                    id: "expiry", status: .fail, detail: "the certificate expired on \(until)",
                    fix: "renew the certificate and reload the service (SIGHUP); Apple cannot deliver meanwhile"))
        } else if certificate.isNotYetValid(at: now) {
            items.append(
                EndpointCheckItem(
                    id: "expiry", status: .fail,
                    detail: "the certificate is not valid before \(Self.day(certificate.notBefore))",
                    fix: "check the issuing system's clock, or wait until the certificate is valid"))
        } else if days < options.expiryWarningDays {
            items.append(
                EndpointCheckItem(
                    id: "expiry", status: .warning, detail: "the certificate expires in \(days) days (\(until))",
                    fix: "renew now; automatic renewal should have happened at \(options.expiryWarningDays) days"))
        } else {
            items.append(
                EndpointCheckItem(id: "expiry", status: .pass, detail: "valid for \(days) more days (until \(until))"))
        }

        items.append(
            certificate.hasStrongKey
                ? EndpointCheckItem(id: "key", status: .pass, detail: "\(certificate.keyDescription)-bit key")
                : EndpointCheckItem(
                    id: "key", status: .fail,
                    detail: "\(certificate.keyDescription)-bit key is below Apple's minimum (RSA 2048, EC 256)",
                    fix: "reissue the certificate with an RSA 2048+ or ECDSA P-256 key"))
        items.append(
            certificate.hasWeakSignatureDigest
                ? EndpointCheckItem(
                    id: "signature", status: .fail,
                    detail: "signed with \(certificate.signatureAlgorithm); Apple requires SHA-2",
                    fix: "reissue the certificate with a SHA-256 (or stronger) signature")
                : EndpointCheckItem(
                    id: "signature", status: .pass, detail: "signed with \(certificate.signatureAlgorithm)"))
        return items
    }

    /// App Transport Security, as Apple's servers apply it: TLS 1.2+, a forward-secret AEAD suite, a SHA-2
    /// signature, and a large enough key.
    private func checkATS(_ session: TLSClientSession) -> EndpointCheckItem {
        var problems: [String] = []
        if (session.protocolVersion ?? .tls1_0) < .tls1_2 { problems.append("protocol \(session.protocolName)") }
        if !session.isForwardSecretAEAD { problems.append("suite \(session.cipherName) is not ECDHE with AEAD") }
        if let certificate = session.peerCertificate {
            if certificate.hasWeakSignatureDigest { problems.append("\(certificate.signatureAlgorithm) signature") }
            if !certificate.hasStrongKey { problems.append("\(certificate.keyDescription)-bit key") }
        } else {
            problems.append("no certificate")
        }
        guard problems.isEmpty else {
            return EndpointCheckItem(
                id: "ats", status: .fail,
                detail: "not App Transport Security compliant: " + problems.joined(separator: "; "),
                fix: "fix the failed TLS, key and signature checks above")
        }
        return EndpointCheckItem(
            id: "ats", status: .pass,
            detail: "App Transport Security compliant (TLS 1.2+, forward-secret AEAD, SHA-2, key size)")
    }

    // MARK: Formatting

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? HTTPClientError else { return "\(error)" }
        switch error {
        case .invalidAddress(let host): return "cannot resolve \(host)"
        case .connectFailed(let code): return "connect: \(String(cString: strerror(code)))"
        case .sendFailed(let code): return "send: \(String(cString: strerror(code)))"
        case .receiveFailed(let code): return "receive: \(String(cString: strerror(code)))"
        case .timedOut: return "timed out"
        case .connectionClosed: return "the server closed the connection"
        case .malformedResponse: return "malformed HTTP response"
        case .responseTooLarge: return "response too large"
        case .invalidRequest: return "invalid request"
        case .tlsHandshakeFailed(let reason): return reason
        }
    }
}
