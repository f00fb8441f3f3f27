/// The admin API's routes as data: the router matches requests against this table, and a test checks it
/// against `admin.openapi.json` path by path and method by method, so the served API and its description
/// cannot drift apart. Templates use OpenAPI's `{name}` syntax.
struct AdminRoute: Sendable, Hashable {
    enum Endpoint: Sendable, Hashable {
        case account, link, appleToken, deletion, outbox, outboxRetry, findings, jobs, jobRetry, jobStepComplete,
            requests, openAPI, metrics, requestExtension, requestHold, requestRelease, requestRefusal
    }

    var endpoint: Endpoint
    var method: String
    var template: String

    static let all: [AdminRoute] = [
        AdminRoute(endpoint: .account, method: "GET", template: "/v1/apps/{app}/accounts/{sub}"),
        AdminRoute(endpoint: .link, method: "PUT", template: "/v1/apps/{app}/accounts/{sub}/link"),
        AdminRoute(endpoint: .appleToken, method: "GET", template: "/v1/apps/{app}/accounts/{sub}/apple-token"),
        AdminRoute(endpoint: .deletion, method: "POST", template: "/v1/apps/{app}/accounts/{sub}/deletion"),
        AdminRoute(
            endpoint: .requestExtension, method: "POST", template: "/v1/apps/{app}/accounts/{sub}/request/extension"),
        AdminRoute(endpoint: .requestHold, method: "POST", template: "/v1/apps/{app}/accounts/{sub}/request/hold"),
        AdminRoute(
            endpoint: .requestRelease, method: "POST", template: "/v1/apps/{app}/accounts/{sub}/request/release"),
        AdminRoute(
            endpoint: .requestRefusal, method: "POST", template: "/v1/apps/{app}/accounts/{sub}/request/refusal"),
        AdminRoute(endpoint: .outbox, method: "GET", template: "/v1/outbox"),
        AdminRoute(endpoint: .outboxRetry, method: "POST", template: "/v1/outbox/{id}/retry"),
        AdminRoute(endpoint: .findings, method: "GET", template: "/v1/findings"),
        AdminRoute(endpoint: .jobs, method: "GET", template: "/v1/jobs"),
        AdminRoute(endpoint: .jobRetry, method: "POST", template: "/v1/jobs/{id}/retry"),
        AdminRoute(endpoint: .jobStepComplete, method: "POST", template: "/v1/jobs/{id}/steps/{target}/complete"),
        AdminRoute(endpoint: .requests, method: "GET", template: "/v1/requests"),
        AdminRoute(endpoint: .openAPI, method: "GET", template: "/openapi.json"),
        AdminRoute(endpoint: .metrics, method: "GET", template: "/metrics"),
    ]

    /// What a request path and method resolve to.
    enum Resolution: Equatable {
        case matched(Endpoint, parameters: [String: String])
        /// The path exists with other methods (405 with `Allow`).
        case methodNotAllowed(allowed: [String])
        case notFound
        /// A parameter segment is not valid percent-encoded UTF-8.
        case badEncoding
    }

    /// Matches a still-encoded path: literal segments compare as sent, parameter segments are
    /// percent-decoded after splitting on `/`, so `%2F` inside a `sub` stays part of it. Empty segments
    /// (`//`, a trailing `/`) match nothing.
    static func resolve(path: String, method: String) -> Resolution {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var allowed: [String] = []
        var badEncoding = false
        for route in all {
            let pattern = route.template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard pattern.count == segments.count else { continue }
            var parameters: [String: String] = [:]
            var matches = true
            for (expected, actual) in zip(pattern, segments) {
                if expected.first == "{", expected.last == "}" {
                    guard !actual.isEmpty else {
                        matches = false
                        break
                    }
                    guard let decoded = PercentDecoding.decode(actual) else {
                        badEncoding = true
                        matches = false
                        break
                    }
                    parameters[String(expected.dropFirst().dropLast())] = decoded
                } else if expected != actual {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            if route.method == method { return .matched(route.endpoint, parameters: parameters) }
            allowed.append(route.method)
        }
        if !allowed.isEmpty { return .methodNotAllowed(allowed: allowed) }
        return badEncoding ? .badEncoding : .notFound
    }
}
