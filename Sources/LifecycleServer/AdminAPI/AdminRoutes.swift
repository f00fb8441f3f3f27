import Foundation
import HTTP1
import LifecycleCore
import LifecycleEngine
import LifecycleStore

/// The admin listener's handler (DESIGN.md §4): bearer authentication on every request, then the routes of
/// ``AdminRoute/all``. JSON in and out (but `GET /metrics`, Prometheus text); refusals are
/// `{"error": code, "description": …}`.
struct AdminRoutes: Sendable {
    let context: ServiceContext
    let accounts: AccountOperations
    let outbox: OutboxOperations
    let findings: FindingOperations
    let jobs: JobOperations
    let ledger: RequestOperations
    let decisions: RequestDecisionOperations
    let requests: Counter
    /// The bytes of `admin.openapi.json`, nil when the resource is missing from the installation.
    let openAPIDocument: [UInt8]?

    init(context: ServiceContext, erasure: ErasureJobRunner) {
        self.context = context
        accounts = AccountOperations(context: context)
        outbox = OutboxOperations(context: context)
        findings = FindingOperations(context: context)
        jobs = JobOperations(context: context, runner: erasure)
        ledger = RequestOperations(context: context)
        decisions = RequestDecisionOperations(context: context)
        openAPIDocument = AdminOpenAPI.document
        requests = context.metrics.counter(
            "lifecycle_admin_requests_total", help: "Admin API requests by route and status code.")
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let (route, response) = await authenticatedRoute(request)
        requests.increment([("route", route), ("status", String(response.status.code))])
        return response
    }

    private func authenticatedRoute(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        // No token in force (it never starts without one; this only guards the type) refuses everything.
        let check = context.current.adminToken?.check(authorization: request.headers.values(for: "Authorization"))
        switch check ?? .invalid {
        case .accepted:
            break
        case .missing:
            return ("unauthorized", Self.unauthorized(challenge: "Bearer realm=\"lifecycle-admin\""))
        case .invalid:
            return (
                "unauthorized",
                Self.unauthorized(challenge: "Bearer realm=\"lifecycle-admin\", error=\"invalid_token\"")
            )
        }
        switch AdminRoute.resolve(path: request.path, method: request.method) {
        case .notFound:
            return ("other", AdminError.notFound.response)
        case .badEncoding:
            return (
                "other",
                AdminError.badRequest(.invalidPath, "a path parameter is not valid percent-encoding").response
            )
        case .methodNotAllowed(let allowed):
            var response = AdminError(
                status: 405, code: .methodNotAllowed, "use \(allowed.joined(separator: " or ")) on this path"
            ).response
            try? response.headers.replace(name: "Allow", value: allowed.joined(separator: ", "))
            return ("other", response)
        case .matched(let endpoint, let parameters):
            do {
                return try await serve(endpoint, parameters: parameters, request: request)
            } catch let error as AdminError {
                return (Self.name(endpoint), error.response)
            } catch {
                return (Self.name(endpoint), AdminError.storageUnavailable.response)
            }
        }
    }

    private func serve(
        _ endpoint: AdminRoute.Endpoint, parameters: [String: String], request: HTTPRequest
    ) async throws -> (String, HTTPResponse) {
        let name = Self.name(endpoint)
        let app = parameters["app"] ?? ""
        let subject = parameters["sub"] ?? ""
        switch endpoint {
        case .account:
            return (name, .jsonDocument(try await accounts.show(app: app, subject: subject)))
        case .link:
            let body = try LinkRequestBody.parse(request.body)
            return (name, .jsonDocument(try await accounts.link(app: app, subject: subject, request: body)))
        case .appleToken:
            return (name, .jsonDocument(try await accounts.appleToken(app: app, subject: subject)))
        case .deletion:
            let eventTime = try AdminRequestBody.eventTime(from: request.body)
            return (name, .jsonDocument(try await accounts.delete(app: app, subject: subject, eventTime: eventTime)))
        case .outbox:
            let query = try OutboxQuery(request.query)
            return (
                name, .jsonDocument(try await outbox.list(status: query.status, limit: query.limit, after: query.after))
            )
        case .outboxRetry:
            guard let id = OutboxQuery.identifier(parameters["id"] ?? "") else {
                throw AdminError(status: 404, code: .unknownMessage, "outbox ids are positive integers")
            }
            return (name, .jsonDocument(try await outbox.retry(id: id)))
        case .findings:
            let query = try PageQuery(request.query, filters: ["app", "resolved"])
            let resolved = try query.flag("resolved", invalid: .invalidResolved)
            return (
                name,
                .jsonDocument(
                    try await findings.list(
                        app: query.filters["app"], includeResolved: resolved, limit: query.limit, after: query.after))
            )
        case .jobs:
            let query = try PageQuery(request.query, filters: ["status", "app", "sub"])
            return (
                name,
                .jsonDocument(
                    try await jobs.list(
                        status: query.filters["status"], app: query.filters["app"], subject: query.filters["sub"],
                        limit: query.limit, after: query.after))
            )
        case .jobRetry:
            guard let id = OutboxQuery.identifier(parameters["id"] ?? "") else {
                throw AdminError(status: 404, code: .unknownJob, "job ids are positive integers")
            }
            return (name, .jsonDocument(try await jobs.retry(id: id)))
        case .jobStepComplete:
            guard let id = OutboxQuery.identifier(parameters["id"] ?? "") else {
                throw AdminError(status: 404, code: .unknownJob, "job ids are positive integers")
            }
            return (
                name,
                .jsonDocument(
                    try await jobs.complete(id: id, target: parameters["target"] ?? "", body: request.body))
            )
        case .requests:
            return (name, .jsonDocument(try await ledger.list(query: request.query)))
        case .requestExtension, .requestHold, .requestRelease, .requestRefusal:
            let decision = Self.decision(endpoint) ?? .hold
            let body = try RequestDecisionBody.parse(request.body, for: decision)
            return (
                name,
                .jsonDocument(try await decisions.record(decision, app: app, subject: subject, body: body))
            )
        case .openAPI:
            guard let document = openAPIDocument else {
                throw AdminError(
                    status: 500, code: .openAPIMissing, "admin.openapi.json is missing from this installation")
            }
            return (name, .json(bytes: document))
        case .metrics:
            return (name, MetricsExposition.response(context.metrics))
        }
    }

    static func name(_ endpoint: AdminRoute.Endpoint) -> String {
        switch endpoint {
        case .account: "account"
        case .link: "link"
        case .appleToken: "apple_token"
        case .deletion: "deletion"
        case .outbox: "outbox"
        case .outboxRetry: "outbox_retry"
        case .findings: "findings"
        case .jobs: "jobs"
        case .jobRetry: "job_retry"
        case .jobStepComplete: "job_step_complete"
        case .requests: "requests"
        case .openAPI: "openapi"
        case .metrics: "metrics"
        case .requestExtension: "request_extension"
        case .requestHold: "request_hold"
        case .requestRelease: "request_release"
        case .requestRefusal: "request_refusal"
        }
    }

    static func decision(_ endpoint: AdminRoute.Endpoint) -> RequestDecision? {
        switch endpoint {
        case .requestExtension: .extension
        case .requestHold: .hold
        case .requestRelease: .release
        case .requestRefusal: .refusal
        default: nil
        }
    }

    /// 401 with the challenge RFC 6750 §3 asks for; the body says nothing about which part was wrong.
    static func unauthorized(challenge: String) -> HTTPResponse {
        var response = AdminError(
            status: 401, code: .unauthorized, "send Authorization: Bearer <admin token>"
        ).response
        try? response.headers.replace(name: "WWW-Authenticate", value: challenge)
        return response
    }
}

/// The query of `GET /v1/outbox`: `status`, `limit`, `after`. Unknown parameters are refused so a typo
/// (`state=dead`) does not silently list everything.
package struct OutboxQuery {
    package var status: OutboxStatus?
    package var limit: Int?
    package var after: Int64?

    package init(_ query: String?) throws(AdminError) {
        guard let items = PercentDecoding.queryItems(query) else {
            throw AdminError.badRequest(.invalidQuery, "the query is not valid percent-encoding")
        }
        for item in items {
            switch item.name {
            case "status":
                guard let status = OutboxStatus(rawValue: item.value) else {
                    throw AdminError.badRequest(.invalidStatus, "status must be pending, delivered or dead")
                }
                self.status = status
            case "limit":
                guard let limit = Self.identifier(item.value), limit <= Int64(Int32.max) else {
                    throw AdminError.badRequest(.invalidLimit, "limit must be a positive whole number")
                }
                self.limit = Int(limit)
            case "after":
                guard let after = Self.identifier(item.value) else {
                    throw AdminError.badRequest(.invalidAfter, "after must be a message id")
                }
                self.after = after
            default:
                throw AdminError.badRequest(.unknownParameter, "unknown query parameter; use status, limit, after")
            }
        }
    }

    /// A positive decimal id: ASCII digits only (no sign), any count, as long as the value fits Int64 —
    /// exactly the `minimum: 1, maximum: 9223372036854775807` that `admin.openapi.json` declares, so every
    /// value the description allows is accepted and every other one refused. Overflow is reported, never
    /// trapped.
    package static func identifier(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value > 0 ? value : nil
    }
}
