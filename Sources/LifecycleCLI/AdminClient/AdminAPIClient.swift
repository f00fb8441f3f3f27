import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleEngine
import LifecycleServer
import LifecycleStore

/// The admin API seen from the CLI (`--url`): builds the same requests an app backend sends and turns the
/// answers back into documents or ``AdminError``s, so the command prints the same thing either way.
struct AdminAPIClient {
    let client: HTTPClient
    let token: String

    /// `http://HOST[:PORT]`; the admin listener speaks plain HTTP on loopback (put TLS in front for more).
    init(url: String, token: String, timeout: Duration = .seconds(10)) throws(UsageError) {
        guard let components = URLComponents(string: url), components.scheme == "http",
            let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
            components.query == nil
        else {
            throw UsageError("--url \(url) must look like http://127.0.0.1:8081")
        }
        client = HTTPClient(host: host, port: components.port ?? 80, timeout: timeout)
        self.token = token
    }

    /// The bearer token for `--url`: `--token-file`, else `LIFECYCLE_ADMIN_TOKEN`, else `admin.tokenFile`.
    static func token(file tokenFile: String?, configFile: String, io: CommandIO) throws -> String {
        var path = tokenFile
        if path == nil, io.environment[AdminBearerToken.environmentVariable]?.isEmpty ?? true,
            FileManager.default.fileExists(atPath: configFile)
        {
            path = try ServiceConfiguration.load(file: configFile, environment: io.environment).admin.tokenFile
        }
        let environment = tokenFile == nil ? io.environment : [:]
        guard
            let secret = try SecretFile.read(
                path: path, variable: AdminBearerToken.environmentVariable, environment: environment)
        else {
            throw UsageError("no admin token: pass --token-file FILE or set \(AdminBearerToken.environmentVariable)")
        }
        return String(decoding: secret, as: UTF8.self)
    }

    func account(
        _ action: AccountCommand.Action, app: String, subject: String, eventTime: Instant?
    ) async throws -> Result<JSONValue, AdminError> {
        let path = "/v1/apps/\(PercentDecoding.encode(app))/accounts/\(PercentDecoding.encode(subject))"
        var body: [UInt8] = []
        if let eventTime { body = JSONValue.object(["eventTime": .string(eventTime.iso8601)]).serializedBytes() }
        switch action {
        case .show: return try await send("GET", path, body: [])
        case .link: return try await send("PUT", path + "/link", body: body)
        case .delete: return try await send("POST", path + "/deletion", body: body)
        }
    }

    func requestDecision(
        _ decision: RequestDecision, app: String, subject: String, body: RequestDecisionBody
    ) async throws -> Result<JSONValue, AdminError> {
        let path = "/v1/apps/\(PercentDecoding.encode(app))/accounts/\(PercentDecoding.encode(subject))/request/"
        return try await send("POST", path + decision.rawValue, body: body.document(for: decision))
    }

    func outboxList(status: OutboxStatus?, limit: Int?, after: Int64?) async throws -> Result<JSONValue, AdminError> {
        var query: [String] = []
        if let status { query.append("status=\(status.rawValue)") }
        if let limit { query.append("limit=\(limit)") }
        if let after { query.append("after=\(after)") }
        return try await send("GET", "/v1/outbox" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), body: [])
    }

    func outboxRetry(id: Int64) async throws -> Result<JSONValue, AdminError> {
        try await send("POST", "/v1/outbox/\(id)/retry", body: [])
    }

    func send(_ method: String, _ target: String, body: [UInt8]) async throws -> Result<JSONValue, AdminError> {
        var headers = HTTPHeaders()
        do {
            try headers.add(name: "Authorization", value: "Bearer \(token)")
        } catch {
            throw UsageError("the admin token contains characters not allowed in an HTTP header")
        }
        if !body.isEmpty { try headers.add(name: "Content-Type", value: "application/json") }
        let response: HTTPClientResponse
        do {
            response = try await client.send(
                HTTPClientRequest(method: method, target: target, headers: headers, body: body))
        } catch {
            throw AdminAPIClientError(
                description: "cannot reach the admin API at \(client.host):\(client.port): \(error)")
        }
        let document = JSONValue.parseIfValid(response.body)
        if (200..<300).contains(response.status), let document { return .success(document) }
        if let error = AdminError(status: response.status, document: document) { return .failure(error) }
        throw AdminAPIClientError(description: "the admin API answered \(response.status) without an error document")
    }
}

struct AdminAPIClientError: Error, CustomStringConvertible {
    var description: String
}
