import LifecycleCore
import LifecycleEngine
import LifecycleReports

/// `GET /v1/requests?app=&from=&to=`: the request ledger of one app (CCPA regulations §7101): every deletion
/// request with event time in `[from, to)`, how and when it arrived and was acknowledged, its policy and
/// deadline, and the date and nature of the answer, with the period's totals (§7102). The same dataset the
/// report files are rendered from, read without writing anything; subjects as the reports' pseudonyms.
struct RequestOperations: Sendable {
    let context: ServiceContext

    /// The parameters, each checked: `app` (required, configured), `from` and `to` (RFC 3339 date or instant,
    /// both or neither; default the report's default period up to now).
    struct Query {
        var app: String
        var period: ReportPeriod

        init(_ query: String?, apps: [String], now: Instant) throws(AdminError) {
            guard let items = PercentDecoding.queryItems(query) else {
                throw AdminError.badRequest(.invalidQuery, "the query is not valid percent-encoding")
            }
            var values: [String: String] = [:]
            for item in items {
                guard ["app", "from", "to"].contains(item.name) else {
                    throw AdminError.badRequest(.unknownParameter, "unknown query parameter; use app, from, to")
                }
                values[item.name] = item.value
            }
            guard let app = values["app"], !app.isEmpty else {
                throw AdminError.badRequest(.invalidQuery, "app is required: ?app=ID")
            }
            guard apps.contains(app) else { throw AdminError.unknownApp(app) }
            self.app = app
            switch (values["from"], values["to"]) {
            case (nil, nil):
                period = ReportPeriod.recent(asOf: now)
            case (let from?, let to?):
                guard let start = ISO8601Format.parse(from), let end = ISO8601Format.parse(to) else {
                    throw AdminError.badRequest(.invalidPeriod, "from and to are \(ISO8601Format.expectedForm)")
                }
                guard start < end else { throw AdminError.badRequest(.invalidPeriod, "from must be before to") }
                period = ReportPeriod(from: start, to: end)
            default:
                throw AdminError.badRequest(.invalidPeriod, "give both from and to, or neither")
            }
        }
    }

    func list(query: String?) async throws -> JSONValue {
        let now = context.clock.now()
        let parsed = try Query(query, apps: context.configuration.apps.map(\.id), now: now)
        return try await AdminError.mappingStoreFailures(log: context.log) {
            let dataset = try await ReportGenerator.dataset(
                configuration: context.configuration, store: context.store, app: parsed.app, period: parsed.period,
                at: now)
            // A row the spool could not read back throws: 503 and a log line, not a ledger missing a request.
            return try ReportLedgerRenderer.document(dataset)
        }
    }
}
