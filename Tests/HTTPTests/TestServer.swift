import Foundation
import HTTP1
import HTTPServer

/// Starts a real server on 127.0.0.1 with an ephemeral port, runs `body`, and shuts the server down.
func withServer(
    _ configuration: HTTPServerConfiguration = testConfiguration(),
    handler: @escaping HTTPServer.Handler = echoHandler,
    _ body: (HTTPServer, Int) async throws -> Void
) async throws {
    let server = HTTPServer(configuration: configuration, handler: handler)
    try server.start()
    do {
        try await body(server, server.boundPort!)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// Loopback, ephemeral port, short linger and grace periods, then the test's own changes.
func testConfiguration(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) -> HTTPServerConfiguration {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.lingerTimeout = .milliseconds(500)
    configuration.shutdownGracePeriod = .seconds(5)
    configure(&configuration)
    return configuration
}

/// Answers `METHOD path query=… body=<n bytes>`; `/echo` returns the request body itself; `/slow` waits a
/// second first; `/sleep/<ms>` waits that many milliseconds and answers the path.
@Sendable func echoHandler(_ request: HTTPRequest) async -> HTTPResponse {
    if request.path == "/echo" { return HTTPResponse(status: .ok, body: request.body) }
    if request.path == "/slow" {
        try? await Task.sleep(for: .seconds(1))
        return .text("done")
    }
    if request.path.hasPrefix("/sleep/"), let milliseconds = Int(request.path.dropFirst("/sleep/".count)) {
        try? await Task.sleep(for: .milliseconds(milliseconds))
        return .text(request.path)
    }
    return .text("\(request.method) \(request.path) query=\(request.query ?? "-") body=\(request.body.count)")
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
