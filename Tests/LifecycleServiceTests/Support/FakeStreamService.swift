import FoundationEssentials
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import Synchronization
import TestSupport

/// The stream management of ``FakeTransmitter``, checking what a real transmitter checks:
///
/// - SSF 1.0 §8.1.1 at `/ssf/stream` (POST create → 201, GET with or without `stream_id` → 200 / 404, PATCH →
///   200) and §8.1.4.2 at `/ssf/verify` (POST → 204, then a verification SET carrying the `state` pushed to
///   the stream's `delivery.endpoint_url` with its `authorization_header`), every call with
///   `Authorization: Bearer <managementToken>` (else 401), JSON bodies of the right shape (else 400), an
///   `https://` push endpoint, a delivery method it supports.
/// - Google's RISC API at `/v1beta/stream:update`, `/v1beta/stream`, `/v1beta/stream:verify`, authorised by a
///   service account's self-signed RS256 JWT (`iss` = `sub` = the account's e-mail, `aud` the RISC service,
///   not expired, `kid` its key) — else 401 — and `/.well-known/risc-configuration`.
final class FakeStreamService: Sendable {
    static let managementToken = "fake-transmitter-management-token-0123"
    static let serviceAccountEmail = "risc-receiver@example-project.iam.gserviceaccount.com"
    static let serviceAccountKeyID = "fake-sa-key-1"
    static let googleAudience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
    static let googlePush = "https://schemas.openid.net/secevent/risc/delivery-method/push"
    static let ssfVerification = "https://schemas.openid.net/secevent/ssf/event-type/verification"
    static let riscVerification = "https://schemas.openid.net/secevent/risc/event-type/verification"
    static let serviceAccountKey: RSAPrivateKey = {
        do { return try RSAPrivateKey.generate() } catch { fatalError("no RSA key: \(error)") }
    }()

    struct State {
        var streams: [String: JSONObject] = [:]
        var order: [String] = []
        var google: JSONObject?
        /// Every management call: `METHOD path status`.
        var calls: [String] = []
        /// The answers of the receiver to the verification SETs pushed.
        var pushes: [Int] = []
        /// What a new SSF stream's `aud` is (the receiver's audience).
        var audience = "https://receiver.example.com/"
        var googleClientID = "1234-abc.apps.googleusercontent.com"
        /// The CA that issued the receiver's certificate, for the pushes.
        var receiverCA: String?
        /// The path a new poll stream's `delivery.endpoint_url` names.
        var pollPath = FakePollEndpoint.path
    }

    let state = Mutex(State())
    /// Signs a SET: event URI, event body, subject, audience, `iss` override (nil: the fake's issuer).
    let signer = Mutex<(@Sendable (String, JSONObject, JSONValue, String, String?) -> [UInt8])?>(nil)

    var calls: [String] { state.withLock { $0.calls } }
    var pushes: [Int] { state.withLock { $0.pushes } }
    var streams: [JSONObject] { state.withLock { state in state.order.compactMap { state.streams[$0] } } }
    var google: JSONObject? { state.withLock { $0.google } }

    func configure(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    /// The service account key file Google's console would download.
    static func serviceAccountFile() throws -> String {
        let pem = String(decoding: try serviceAccountKey.pemPKCS8(), as: UTF8.self)
        let document: JSONValue = [
            "type": "service_account", "project_id": "example-project",
            "private_key_id": .string(serviceAccountKeyID), "private_key": .string(pem),
            "client_email": .string(serviceAccountEmail), "client_id": "1234567890",
        ]
        return document.serialized(pretty: true)
    }

    /// Answers a management path, nil when the path is not one.
    func handle(_ request: HTTPRequest, base: String) async -> HTTPResponse? {
        let response: HTTPResponse
        switch request.path {
        case "/ssf/stream": response = ssfStream(request, base: base)
        case "/ssf/verify": response = ssfVerify(request)
        case "/v1beta/stream:update": response = googleUpdate(request)
        case "/v1beta/stream": response = googleShow(request)
        case "/v1beta/stream:verify": response = googleVerify(request)
        case "/.well-known/risc-configuration":
            let document: JSONValue = [
                "issuer": "https://accounts.google.com/", "jwks_uri": .string(base + "/jwks"),
                "delivery_methods_supported": [.string(Self.googlePush)],
            ]
            return .json(bytes: document.encoded())
        default: return nil
        }
        let code = response.status.code
        state.withLock { $0.calls.append("\(request.method) \(request.path) \(code)") }
        return response
    }

    // MARK: SSF

    private func ssfStream(_ request: HTTPRequest, base: String) -> HTTPResponse {
        guard bearer(request) == Self.managementToken else { return Self.error(401, "authentication_failed") }
        switch request.method {
        case "POST":
            guard let body = Self.jsonBody(request)?.objectValue else { return Self.error(400, "invalid_request") }
            guard let asked = body["delivery"]?.objectValue, let method = asked["method"]?.stringValue else {
                return Self.error(400, "invalid_request", "delivery.method is required")
            }
            var delivery = asked
            switch method {
            case FakeTransmitter.pushDelivery:
                guard let url = delivery["endpoint_url"]?.stringValue, url.hasPrefix("https://") else {
                    return Self.error(400, "invalid_request", "push delivery needs an https endpoint_url")
                }
            case FakeTransmitter.pollDelivery:
                // SSF 1.0 §8.1.1: for poll the transmitter supplies the endpoint; the receiver sends none.
                guard delivery["endpoint_url"] == nil, delivery["authorization_header"] == nil else {
                    return Self.error(400, "invalid_request", "poll delivery: endpoint_url is the transmitter's")
                }
                delivery["endpoint_url"] = .string(base + state.withLock { $0.pollPath })
            default:
                return Self.error(400, "invalid_request", "delivery method not supported")
            }
            guard let requested = Self.strings(body["events_requested"]) else {
                return Self.error(400, "invalid_request", "events_requested must be an array of strings")
            }
            let id = "stream-" + FakeTransmitter.makeJTI()
            let audience = state.withLock { $0.audience }
            let stream: JSONObject = [
                "stream_id": .string(id), "aud": .string(audience), "delivery": .object(delivery),
                "events_supported": .array(requested.map(JSONValue.string)),
                "events_requested": .array(requested.map(JSONValue.string)),
                "events_delivered": .array(requested.map(JSONValue.string)), "min_verification_interval": 15,
                "description": body["description"] ?? .null,
            ]
            state.withLock {
                $0.streams[id] = stream
                $0.order.append(id)
            }
            return .json(bytes: JSONValue.object(Self.public(stream)).encoded(), status: .created)
        case "GET":
            let id = Self.queryValue(request.query, "stream_id")
            return state.withLock { state in
                if let id {
                    guard let stream = state.streams[id] else { return Self.error(404, "not_found") }
                    return .json(bytes: JSONValue.object(Self.public(stream)).encoded())
                }
                let all = state.order.compactMap { state.streams[$0] }.map { JSONValue.object(Self.public($0)) }
                return .json(bytes: JSONValue.array(all).encoded())
            }
        case "PATCH":
            guard let body = Self.jsonBody(request)?.objectValue, let id = body["stream_id"]?.stringValue else {
                return Self.error(400, "invalid_request", "stream_id is required")
            }
            return state.withLock { state in
                guard var stream = state.streams[id] else { return Self.error(404, "not_found") }
                if let requested = body["events_requested"] {
                    guard let events = Self.strings(requested) else { return Self.error(400, "invalid_request") }
                    stream["events_requested"] = .array(events.map(JSONValue.string))
                    stream["events_delivered"] = .array(events.map(JSONValue.string))
                }
                if let delivery = body["delivery"] {
                    if delivery["method"]?.stringValue == FakeTransmitter.pollDelivery {
                        guard delivery["endpoint_url"] == nil else { return Self.error(400, "invalid_request") }
                    } else {
                        guard delivery["endpoint_url"]?.stringValue?.hasPrefix("https://") == true else {
                            return Self.error(400, "invalid_request")
                        }
                        stream["delivery"] = delivery
                    }
                }
                state.streams[id] = stream
                return .json(bytes: JSONValue.object(Self.public(stream)).encoded())
            }
        default:
            return Self.error(405, "invalid_request")
        }
    }

    private func ssfVerify(_ request: HTTPRequest) -> HTTPResponse {
        guard bearer(request) == Self.managementToken else { return Self.error(401, "authentication_failed") }
        guard request.method == "POST", let body = Self.jsonBody(request)?.objectValue,
            let id = body["stream_id"]?.stringValue
        else { return Self.error(400, "invalid_request", "stream_id is required") }
        guard let stream = state.withLock({ $0.streams[id] }) else { return Self.error(404, "not_found") }
        var event: JSONObject = [:]
        if let state = body["state"] {
            guard state.stringValue != nil else { return Self.error(400, "invalid_request") }
            event["state"] = state
        }
        guard let url = stream["delivery"]?["endpoint_url"]?.stringValue, let audience = stream["aud"]?.stringValue
        else { return Self.error(500, "internal") }
        let authorization = stream["delivery"]?["authorization_header"]?.stringValue
        push(
            event: Self.ssfVerification, body: event, subject: ["format": "opaque", "id": .string(id)],
            audience: audience, issuer: nil, to: url, authorization: authorization)
        return .empty(.noContent)
    }

    // MARK: Google

    private func googleUpdate(_ request: HTTPRequest) -> HTTPResponse {
        if let refused = googleAuthorization(request) { return refused }
        guard request.method == "POST", let body = Self.jsonBody(request)?.objectValue,
            let delivery = body["delivery"]?.objectValue
        else { return Self.googleError(400, "INVALID_ARGUMENT") }
        guard delivery["delivery_method"]?.stringValue == Self.googlePush,
            delivery["url"]?.stringValue?.hasPrefix("https://") == true
        else { return Self.googleError(400, "INVALID_ARGUMENT") }
        guard let events = Self.strings(body["events_requested"]), !events.isEmpty else {
            return Self.googleError(400, "INVALID_ARGUMENT")
        }
        state.withLock { $0.google = body }
        return .json(bytes: Array("{}".utf8))
    }

    private func googleShow(_ request: HTTPRequest) -> HTTPResponse {
        if let refused = googleAuthorization(request) { return refused }
        guard let google = state.withLock({ $0.google }) else { return Self.googleError(404, "NOT_FOUND") }
        return .json(bytes: JSONValue.object(google).encoded())
    }

    private func googleVerify(_ request: HTTPRequest) -> HTTPResponse {
        if let refused = googleAuthorization(request) { return refused }
        guard request.method == "POST", let body = Self.jsonBody(request)?.objectValue,
            let verificationState = body["state"]?.stringValue
        else { return Self.googleError(400, "INVALID_ARGUMENT") }
        let (google, clientID) = state.withLock { ($0.google, $0.googleClientID) }
        guard let url = google?["delivery"]?["url"]?.stringValue else { return Self.googleError(404, "NOT_FOUND") }
        push(
            event: Self.riscVerification, body: ["state": .string(verificationState)],
            subject: ["subject_type": "iss-sub", "iss": "https://accounts.google.com/", "sub": "stream"],
            audience: clientID, issuer: "https://accounts.google.com/", to: url, authorization: nil)
        return .json(bytes: Array("{}".utf8))
    }

    /// nil when the request carries a valid service account JWT, else Google's 401.
    private func googleAuthorization(_ request: HTTPRequest) -> HTTPResponse? {
        guard let token = bearer(request) else { return Self.googleError(401, "UNAUTHENTICATED") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let claimsBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = JSONValue.parseIfValid(headerBytes), let claims = JSONValue.parseIfValid(claimsBytes),
            header["alg"] == "RS256", header["kid"]?.stringValue == Self.serviceAccountKeyID,
            Self.serviceAccountKey.publicKey.verifyRS256(
                signature: signature, message: Array((parts[0] + "." + parts[1]).utf8))
        else { return Self.googleError(401, "UNAUTHENTICATED") }
        let now = SystemClock().now().secondsSinceEpoch
        guard claims["iss"]?.stringValue == Self.serviceAccountEmail,
            claims["sub"]?.stringValue == Self.serviceAccountEmail, claims["aud"]?.stringValue == Self.googleAudience,
            let exp = claims["exp"]?.integerValue, exp > now, let iat = claims["iat"]?.integerValue, iat <= now + 60
        else { return Self.googleError(401, "UNAUTHENTICATED") }
        return nil
    }

    // MARK: Pushing

    /// Pushes a SET to the receiver after the answer, as a transmitter does (RFC 8935 §2), recording its status.
    private func push(
        event: String, body: JSONObject, subject: JSONValue, audience: String, issuer: String?, to url: String,
        authorization: String?
    ) {
        guard let sign = signer.withLock({ $0 }) else { return }
        let set = sign(event, body, subject, audience, issuer)
        let trust = state.withLock { $0.receiverCA }
        Task {
            try? await Task.sleep(for: .milliseconds(50))
            let status = await Self.post(set, to: url, authorization: authorization, trustedCAFile: trust)
            state.withLock { $0.pushes.append(status) }
        }
    }

    /// POSTs `set` to an `https://host:port/path` URL; the status, or 0 when the receiver cannot be reached.
    static func post(_ set: [UInt8], to url: String, authorization: String?, trustedCAFile: String?) async -> Int {
        guard url.hasPrefix("https://") else { return 0 }
        let rest = url.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = String(rest.dropFirst(authority.count))
        let pieces = authority.split(separator: ":")
        guard pieces.count == 2, let port = Int(pieces[1]) else { return 0 }
        let client = HTTPClient(
            host: String(pieces[0]), port: port, timeout: .seconds(10),
            tls: TLSClientConfiguration(trustedCAFile: trustedCAFile))
        var headers: HTTPHeaders = ["Content-Type": "application/secevent+jwt", "Accept": "application/json"]
        if let authorization { try? headers.add(name: "Authorization", value: authorization) }
        do {
            return try await client.send(
                HTTPClientRequest(method: "POST", target: path.isEmpty ? "/" : path, headers: headers, body: set)
            ).status
        } catch {
            return 0
        }
    }

    // MARK: Parts

    private func bearer(_ request: HTTPRequest) -> String? {
        guard let value = request.headers["Authorization"], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }

    /// A JSON body sent as `application/json`, nil otherwise.
    static func jsonBody(_ request: HTTPRequest) -> JSONValue? {
        guard request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true else { return nil }
        return JSONValue.parseIfValid(request.body)
    }

    static func strings(_ value: JSONValue?) -> [String]? {
        guard let value else { return [] }
        guard let array = value.arrayValue else { return nil }
        let strings = array.compactMap(\.stringValue)
        return strings.count == array.count ? strings : nil
    }

    static func queryValue(_ query: String?, _ name: String) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return String(parts[1]).removingPercentEncoding }
        }
        return nil
    }

    /// The stream as GET shows it: the push authorization header is never read back.
    static func `public`(_ stream: JSONObject) -> JSONObject {
        var shown = stream
        if case .object(var delivery)? = stream["delivery"] {
            delivery["authorization_header"] = nil
            shown["delivery"] = .object(delivery)
        }
        return shown
    }

    static func error(_ status: Int, _ err: String, _ description: String = "refused") -> HTTPResponse {
        let body: JSONValue = ["err": .string(err), "description": .string(description)]
        return .json(bytes: body.encoded(), status: (try? HTTPStatus(code: status)) ?? .badRequest)
    }

    static func googleError(_ status: Int, _ code: String) -> HTTPResponse {
        let body: JSONValue = ["error": ["code": .integer(Int64(status)), "status": .string(code)]]
        return .json(bytes: body.encoded(), status: (try? HTTPStatus(code: status)) ?? .badRequest)
    }
}
