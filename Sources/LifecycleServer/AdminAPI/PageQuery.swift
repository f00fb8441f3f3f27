/// The query of a paged list route: `limit`, `after` (the previous page's `next`), and the route's own
/// filters. Unknown parameters are refused rather than ignored, so a typo never returns everything.
package struct PageQuery {
    package var limit: Int?
    package var after: Int64?
    package var filters: [String: String] = [:]

    package init(_ query: String?, filters allowed: [String]) throws(AdminError) {
        guard let items = PercentDecoding.queryItems(query) else {
            throw AdminError.badRequest(.invalidQuery, "the query is not valid percent-encoding")
        }
        for item in items {
            switch item.name {
            case "limit":
                guard let limit = OutboxQuery.identifier(item.value), limit <= 1000 else {
                    throw AdminError.badRequest(.invalidLimit, "limit must be a whole number 1...1000")
                }
                self.limit = Int(limit)
            case "after":
                guard let after = OutboxQuery.identifier(item.value) else {
                    throw AdminError.badRequest(.invalidAfter, "after must be an id")
                }
                self.after = after
            case let name where allowed.contains(name):
                filters[name] = item.value
            default:
                throw AdminError.badRequest(
                    .unknownParameter,
                    "unknown query parameter; use \((allowed + ["limit", "after"]).joined(separator: ", "))")
            }
        }
    }

    /// A `true`/`false` filter, false when absent; any other value is refused with `code`.
    func flag(_ name: String, invalid code: AdminErrorCode) throws(AdminError) -> Bool {
        switch filters[name] {
        case nil, "false": return false
        case "true": return true
        default: throw AdminError.badRequest(code, "\(name) must be true or false")
        }
    }
}
