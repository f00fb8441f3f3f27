import Foundation
import HTTP1
import LifecycleCore

/// A minimal HTTP/1.1 client over plain TCP for tests, webhooks and benchmarks. Each call opens a connection,
/// performs one exchange and closes it; use `HTTPClientConnection` to reuse a connection.
public struct HTTPClient: Sendable {
    public var host: String
    public var port: Int
    public var timeout: Duration
    public var limits: HTTPClientLimits
    /// HTTPS when set.
    public var tls: TLSClientConfiguration?

    public init(
        host: String, port: Int, timeout: Duration = .seconds(10), limits: HTTPClientLimits = HTTPClientLimits(),
        tls: TLSClientConfiguration? = nil
    ) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.limits = limits
        self.tls = tls
    }

    /// Blocking exchange on the calling thread.
    public func sendBlocking(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        var request = request
        if !request.headers.contains("Connection") {
            request.headers.add(HTTPField(validatedName: "Connection", value: "close"))
        }
        let connection = try HTTPClientConnection(host: host, port: port, timeout: timeout, limits: limits, tls: tls)
        defer { connection.close() }
        return try connection.send(request)
    }

    /// The same exchange on the process's ``BlockingExecutor``, so async callers do not block the cooperative
    /// pool and a burst of slow peers cannot start a thread each.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let client = self
        return try await BlockingExecutor.shared.run { () throws(HTTPClientError) in try client.sendBlocking(request) }
    }

    public func get(_ target: String, headers: HTTPHeaders = HTTPHeaders()) async throws(HTTPClientError)
        -> HTTPClientResponse
    {
        try await send(HTTPClientRequest(method: "GET", target: target, headers: headers))
    }

    public func post(_ target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8])
        async throws(HTTPClientError)
        -> HTTPClientResponse
    {
        try await send(HTTPClientRequest(method: "POST", target: target, headers: headers, body: body))
    }
}
