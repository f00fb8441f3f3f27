import HTTP1
import HTTPServer
import LifecycleCore
import Synchronization

/// The sample app's webhook endpoint on loopback: answers 204 to every delivery and remembers each one's
/// Standard Webhooks `type` (`account.sessions.terminate`, …), so the demo can show what the app was told.
final class DemoWebhookReceiver: Sendable {
    static let path = "/hooks/lifecycle"

    /// Shared with the server's handler (a `Mutex` itself cannot be captured: it is not copyable).
    private final class Inbox: Sendable {
        let types = Mutex<[String]>([])
    }

    private let received = Inbox()
    private let server: HTTPServer

    init() {
        let received = self.received
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { request in
            let type = JSONValue.parseIfValid(request.body)?["type"]?.stringValue ?? "(unreadable body)"
            received.types.withLock { $0.append(type) }
            return .empty(.noContent)
        }
    }

    func start() throws { try server.start() }
    func stop() async { await server.shutdown() }

    /// `http://127.0.0.1:PORT/hooks/lifecycle` once started.
    var url: String { "http://127.0.0.1:\(server.boundPort ?? 0)\(Self.path)" }

    /// The types received so far, in arrival order.
    var types: [String] { received.types.withLock { $0 } }
}
