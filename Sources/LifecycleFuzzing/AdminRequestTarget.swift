import LifecycleCore
import LifecycleServer

/// What the admin API parses from a request: the `link` and `deletion` bodies, the step-completion body, and the
/// list routes' query strings. The first byte picks the parser; the rest is its input.
///
/// Properties: an accepted `eventTime` formats and parses back; accepted counts are non-negative and
/// survive being written as `n` and as `n.0`; accepted queries give limits in 1...1000 and positive `after`
/// ids that print back to the same id; every refusal is a 4xx with a code that round-trips.
enum AdminRequestTarget {
    static let target = FuzzTarget(
        name: "admin-request",
        summary: "admin request bodies and queries: accepted values round-trip, counts as JSON Schema integers, "
            + "refusals are 4xx",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard let selector = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        do {
            switch selector % 4 {
            case 0:
                try checkLink(input)
                if let instant = try AdminRequestBody.eventTime(from: input) {
                    try require(ISO8601Format.parse(instant.iso8601) == instant, "eventTime does not round-trip")
                }
            case 1:
                let (_, evidence) = try StepCompletionBody.parse(input)
                for count in [evidence.rowsAffected, evidence.verificationCount].compactMap({ $0 }) {
                    try require(count >= 0, "a negative count was accepted")
                    for text in ["{\"rowsAffected\":\(count)}", "{\"rowsAffected\":\(count).0}"] {
                        let again = try? StepCompletionBody.parse(Array(text.utf8)).1.rowsAffected
                        try require(again == count, "count \(text) does not parse back")
                    }
                }
            case 2:
                let query = try PageQuery(String(decoding: input, as: UTF8.self), filters: ["status", "app"])
                try requirePage(limit: query.limit, after: query.after, maximumLimit: 1000)
            default:
                let query = try OutboxQuery(String(decoding: input, as: UTF8.self))
                try requirePage(limit: query.limit, after: query.after, maximumLimit: Int(Int32.max))
            }
        } catch let failure as PropertyFailure {
            throw failure
        } catch let refusal as AdminError {
            try require((400...499).contains(refusal.status), "refused with status \(refusal.status)")
            // The code is an ``AdminErrorCode`` by type; its wire form must parse back (what a client switches on).
            try require(
                AdminErrorCode(rawValue: refusal.code.rawValue) == refusal.code,
                "code \(refusal.code) does not round-trip")
        } catch {
            throw PropertyFailure("unexpected error \(error)")
        }
    }

    /// The `link` body: accepted credentials are 1…8,192 visible ASCII characters; refusals are 4xx.
    static func checkLink(_ input: [UInt8]) throws(PropertyFailure) {
        let request: LinkRequestBody
        do {
            request = try LinkRequestBody.parse(input)
        } catch {
            try require((400...499).contains(error.status), "link body refused with status \(error.status)")
            return
        }
        var values = [request.clientID].compactMap { $0 }
        switch request.credential {
        case .authorizationCode(let code, let redirectURI)?: values += [code] + [redirectURI].compactMap { $0 }
        case .refreshToken(let token)?: values.append(token)
        case nil: try require(request.clientID == nil, "a clientId without a credential was accepted")
        }
        for value in values {
            try require(
                (1...LinkRequestBody.maximumValueLength).contains(value.utf8.count)
                    && value.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E },
                "a credential value outside visible ASCII was accepted")
        }
    }

    static func requirePage(limit: Int?, after: Int64?, maximumLimit: Int) throws(PropertyFailure) {
        if let limit { try require((1...maximumLimit).contains(limit), "limit \(limit) accepted") }
        if let after {
            try require(after > 0, "after \(after) accepted")
            try require(OutboxQuery.identifier(String(after)) == after, "after \(after) does not print back")
        }
    }
}
