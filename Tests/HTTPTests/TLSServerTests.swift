import Foundation
import HTTP1
import HTTPServer
import LifecycleDevTools
import Testing

@Suite("HTTPS: the server's TLS transport, policy, validation and reload")
struct TLSServerTests {
    @Test("a request and a 300 KB body round-trip over TLS 1.3 with a forward-secret AEAD suite")
    func roundTrip() async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        try await withServer(testConfiguration { $0.transport = .tls(context) }) { _, port in
            let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let (response, protocolName, fs, chain, hostMatches) = try await onThread {
                let connection = try HTTPClientConnection(
                    host: "localhost", port: port, timeout: .seconds(5), tls: fixture.client())
                let response = try connection.send(HTTPClientRequest(method: "POST", target: "/echo", body: body))
                let tls = connection.tls!
                return (response, tls.protocolName, tls.isForwardSecretAEAD, tls.chainVerification, tls.hostNameMatches)
            }
            #expect(response.status == 200)
            #expect(response.body == body)
            #expect(protocolName == "TLSv1.3")
            #expect(fs)
            #expect(chain == .trusted)
            #expect(hostMatches)
        }
    }

    @Test("a TLS 1.2 client negotiates an ECDHE AES-GCM or ChaCha20 suite and keeps the connection alive")
    func tls12Suite() async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        try await withServer(testConfiguration { $0.transport = .tls(context) }) { _, port in
            let configuration = TLSClientConfiguration(
                serverName: "localhost", trustedCAFile: fixture.caFile, maximumVersion: .tls1_2)
            let (cipher, version, statuses) = try await onThread {
                let connection = try HTTPClientConnection(
                    host: "127.0.0.1", port: port, timeout: .seconds(5), tls: configuration)
                let session = connection.tls!
                var statuses: [Int] = []
                for index in 0..<5 {
                    statuses.append(try connection.send(HTTPClientRequest(target: "/\(index)")).status)
                }
                #expect(connection.tls === session, "every request used the same TLS connection")
                return (session.cipherName, session.protocolVersion, statuses)
            }
            #expect(version == .tls1_2)
            #expect(cipher.hasPrefix("ECDHE-"))
            #expect(cipher.contains("GCM") || cipher.contains("CHACHA20"))
            #expect(statuses == [200, 200, 200, 200, 200])
        }
    }

    @Test("a client that offers at most TLS 1.1 is refused with a protocol_version alert")
    func refusesLegacyProtocol() async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        try await withServer(testConfiguration { $0.transport = .tls(context) }) { _, port in
            let legacy = TLSClientConfiguration(
                serverName: "localhost", trustedCAFile: fixture.caFile, minimumVersion: .tls1_0,
                maximumVersion: .tls1_1, verifiesPeer: false, offersLegacyAlgorithms: true)
            let outcome: String = try await onThread {
                do {
                    _ = try HTTPClientConnection(host: "127.0.0.1", port: port, timeout: .seconds(5), tls: legacy)
                    return "connected"
                } catch HTTPClientError.tlsHandshakeFailed(let reason) {
                    return reason
                }
            }
            // The alert proves the ClientHello went out and the server said no (not a client-side refusal).
            #expect(outcome.contains("protocol version"), "\(outcome)")
        }
    }

    @Test("pipelined requests in one TLS write are all answered, in order")
    func pipelining() async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        // A read buffer smaller than the one TLS record carrying all requests: the rest waits decrypted inside
        // OpenSSL, where epoll cannot see it.
        let configuration = testConfiguration {
            $0.transport = .tls(context)
            $0.readChunkSize = 64
        }
        try await withServer(configuration) { _, port in
            let text = try await onThread {
                let raw = try RawConnection(port: port)
                let session = try TLSClientSession(
                    fileDescriptor: raw.descriptor, host: "localhost", configuration: fixture.client(),
                    deadline: .now + .seconds(5))
                var requests = ""
                for index in 0..<10 { requests += "GET /\(index) HTTP/1.1\r\nHost: localhost\r\n\r\n" }
                requests += "GET /last HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                try Array(requests.utf8).withUnsafeBytes { try session.writeAll($0) }
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    let count = try chunk.withUnsafeMutableBytes { try session.read(into: $0) }
                    if count == 0 { break }
                    received.append(contentsOf: chunk[0..<count])
                }
                return received.text
            }
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 11)
            let positions = (0..<10).map { "GET /\($0) query" } + ["GET /last query"]
            let offsets = positions.compactMap { text.range(of: $0)?.lowerBound }
            #expect(offsets.count == 11, "\(text)")
            #expect(offsets == offsets.sorted(), "responses out of order")
        }
    }

    @Test("over the connection cap a TLS connection is closed without a plaintext answer")
    func overCapacity() async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        try await withServer(
            testConfiguration {
                $0.transport = .tls(context)
                $0.maxConnections = 1
            }
        ) { _, port in
            let outcome = try await onThread {
                let first = try HTTPClientConnection(
                    host: "127.0.0.1", port: port, timeout: .seconds(5), tls: fixture.client())
                let status = try first.send(HTTPClientRequest(target: "/")).status
                do {
                    _ = try HTTPClientConnection(
                        host: "127.0.0.1", port: port, timeout: .seconds(5), tls: fixture.client())
                    return (status, "connected")
                } catch HTTPClientError.tlsHandshakeFailed(let reason) {
                    return (status, reason)
                }
            }
            #expect(outcome.0 == 200)
            #expect(outcome.1 != "connected")
            #expect(!outcome.1.contains("wrong version number"), "a plaintext reply reached the TLS client")
        }
    }

    @Test("a handshake that never starts is closed at the header deadline without a plaintext 408")
    func handshakeDeadline() async throws {
        let fixture = try TLSFixture()
        let context = try fixture.context()
        let configuration = testConfiguration {
            $0.transport = .tls(context)
            $0.headerReadTimeout = .milliseconds(300)
        }
        try await withServer(configuration) { server, port in
            let connection = try RawConnection(port: port)
            let started = ContinuousClock.now
            let (bytes, closed) = await connection.readUntilClose()
            #expect(closed)
            #expect(bytes.isEmpty)
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test("reload serves the new certificate to new connections while a keep-alive connection continues")
    func reload() async throws {
        let fixture = try TLSFixture()
        let files = try fixture.serverCertificate(
            "live",
            .init(commonName: "first", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]))
        let context = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.key)
        #expect(context.certificate.commonName == "first")
        try await withServer(testConfiguration { $0.transport = .tls(context) }) { _, port in
            // One thread owns both client connections; the reload happens between their requests.
            let outcome = try await onThread {
                let existing = try HTTPClientConnection(
                    host: "127.0.0.1", port: port, timeout: .seconds(5), tls: fixture.client())
                let session = existing.tls!
                let first = try existing.send(HTTPClientRequest(target: "/a")).status

                _ = try fixture.serverCertificate(
                    "live", .init(commonName: "second", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]))
                try context.reload()

                let fresh = try HTTPClientConnection(
                    host: "127.0.0.1", port: port, timeout: .seconds(5), tls: fixture.client())
                let again = try existing.send(HTTPClientRequest(target: "/b")).status
                return (
                    first, again, existing.tls === session, session.peerCertificate?.commonName,
                    fresh.tls?.peerCertificate?.commonName
                )
            }
            #expect(outcome.0 == 200)
            #expect(outcome.1 == 200)
            #expect(outcome.2, "the existing connection was not re-established")
            #expect(outcome.3 == "first")
            #expect(outcome.4 == "second")
            #expect(context.certificate.commonName == "second")
        }
    }

    @Test("a failed reload keeps the previous certificate in service")
    func failedReloadKeepsCertificate() throws {
        let fixture = try TLSFixture()
        let files = try fixture.serverCertificate("live")
        let context = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.key)
        let expired = try fixture.serverCertificate(
            "expired", .init(commonName: "localhost", validFrom: -10 * 86_400, validUntil: -86_400))
        try FileManager.default.removeItem(atPath: files.certificate)
        try FileManager.default.copyItem(atPath: expired.certificate, toPath: files.certificate)
        #expect(throws: TLSConfigurationError.self) { try context.reload() }
        #expect(context.daysUntilExpiry() >= 89)
    }

    @Test("days until expiry counts whole days of the served certificate")
    func daysUntilExpiry() throws {
        let fixture = try TLSFixture()
        let context = try fixture.context("soon", .init(commonName: "localhost", validUntil: 10 * 86_400 + 600))
        #expect(context.daysUntilExpiry() == 10)
        #expect(context.daysUntilExpiry(at: Date().addingTimeInterval(11 * 86_400)) < 0)
    }

    enum Flaw: String, CaseIterable, Sendable {
        case expired, notYetValid, weakRSAKey, sha1Signature, keyMismatch
    }

    @Test("load-time validation refuses a broken certificate with one line naming the file", arguments: Flaw.allCases)
    func validation(flaw: Flaw) throws {
        let fixture = try TLSFixture()
        var request = DevelopmentCertificates.Request(commonName: "localhost", dnsNames: ["localhost"])
        let expected: TLSConfigurationError.Reason
        switch flaw {
        case .expired:
            (request.validFrom, request.validUntil) = (-10 * 86_400, -60)
            expected = .certificateExpired
        case .notYetValid:
            (request.validFrom, request.validUntil) = (86_400, 10 * 86_400)
            expected = .certificateNotYetValid
        case .weakRSAKey:
            request.key = .rsa(bits: 1024)
            expected = .weakKey
        case .sha1Signature:
            request.digest = .sha1
            expected = .weakSignature
        case .keyMismatch:
            expected = .keyDoesNotMatchCertificate
        }
        var files = try fixture.serverCertificate("leaf", request)
        if flaw == .keyMismatch { files.key = try fixture.serverCertificate("other").key }
        do {
            _ = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.key)
            Issue.record("\(flaw) was accepted")
        } catch {
            #expect(error.reason == expected)
            #expect(error.message.contains(flaw == .keyMismatch ? files.key : files.certificate))
            #expect(!error.message.contains("\n"))
        }
        // Tests and diagnostics can still serve it on purpose (except a key that is not the certificate's).
        if flaw != .keyMismatch {
            let relaxed = try TLSServerContext(
                certificateChainFile: files.certificate, privateKeyFile: files.key, validation: .disabledForTesting)
            #expect(relaxed.certificate.commonName == "localhost")
        }
    }
}
