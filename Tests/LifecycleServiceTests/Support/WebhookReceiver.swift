import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleDevTools
import Synchronization

@testable import LifecycleEngine

/// The app backend's webhook endpoint, played by a real HTTP server on loopback that records what it gets.
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        var id: String
        var timestamp: String
        var signature: String
        var body: [UInt8]
        var json: JSONValue? { JSONValue.parseIfValid(body) }
    }

    final class DeliveryLog: Sendable {
        let items = Mutex<[Delivery]>([])
    }

    let server: HTTPServer
    let log = DeliveryLog()

    /// The CA that issued the receiver's certificate, when it serves HTTPS (``init(port:status:first:holdFirst:tlsDirectory:)``).
    let caFile: String?

    /// Starts on `port` (0 = any free port). The first requests are answered with `first`, in order, the
    /// rest with `status`. With `holdFirst`, the answer to the first request waits that long (a slow
    /// receiver), while later requests are answered at once. With `tlsDirectory` it serves HTTPS with a
    /// certificate for 127.0.0.1 from a CA made there for the test (``caFile``), which no system trusts.
    init(
        port: Int = 0, status: HTTPStatus = .noContent, first: [HTTPStatus] = [], holdFirst: Duration? = nil,
        tlsDirectory: String? = nil
    ) throws {
        let log = self.log
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: port)
        if let tlsDirectory {
            let authority = try DevelopmentCertificates.authority(commonName: "Webhook Receiver Test CA")
            let issued = try DevelopmentCertificates.issue(
                DevelopmentCertificates.Request(
                    commonName: "127.0.0.1", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]),
                signedBy: authority)
            let caFile = tlsDirectory + "/receiver-ca.pem"
            try authority.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            try issued.certificatePEM.write(toFile: tlsDirectory + "/receiver.crt", atomically: true, encoding: .utf8)
            try issued.privateKeyPEM.write(toFile: tlsDirectory + "/receiver.key", atomically: true, encoding: .utf8)
            configuration.transport = .tls(
                try TLSServerContext(
                    certificateChainFile: tlsDirectory + "/receiver.crt", privateKeyFile: tlsDirectory + "/receiver.key"
                ))
            self.caFile = caFile
        } else {
            caFile = nil
        }
        server = HTTPServer(configuration: configuration) { request in
            let count = log.items.withLock { items in
                items.append(
                    Delivery(
                        id: request.headers["webhook-id"] ?? "", timestamp: request.headers["webhook-timestamp"] ?? "",
                        signature: request.headers["webhook-signature"] ?? "", body: request.body))
                return items.count
            }
            if count == 1, let holdFirst { try? await Task.sleep(for: holdFirst) }
            return .empty(count <= first.count ? first[count - 1] : status)
        }
        try server.start()
    }

    var port: Int { server.boundPort ?? 0 }
    var url: String { "\(caFile == nil ? "http" : "https")://127.0.0.1:\(port)/hooks/lifecycle" }
    var received: [Delivery] { log.items.withLock { $0 } }

    /// Whether `delivery` carries a valid Standard Webhooks signature under `secret`.
    static func isSigned(_ delivery: Delivery, secret: String) -> Bool {
        guard let timestamp = Int64(delivery.timestamp) else { return false }
        return WebhookSigner(secret: Array(secret.utf8)).verify(
            id: delivery.id, timestamp: timestamp, body: delivery.body, signatureHeader: delivery.signature)
    }

    func stop() async { await server.shutdown() }

    /// Waits until `count` deliveries arrived or `timeout` passed; returns what arrived.
    func waitFor(_ count: Int, timeout: Duration = .seconds(10)) async -> [Delivery] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while received.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return received
    }

    /// A port that nothing holds now and no outgoing connection will take (``TestPorts``): for a listener a
    /// `serve` process binds later, or for "the receiver is down".
    static func unusedPort() async throws -> Int {
        try TestPorts.unused()
    }
}
