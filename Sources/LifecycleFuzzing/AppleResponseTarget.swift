import AppleAccountAPI
import LifecycleCore

/// Answers of Apple's REST API as the network may deliver them (``AppleResponseDecoder``): a status, a
/// `Retry-After` value and a body, for `/auth/token` (both grants) and `/auth/revoke`.
///
/// The input is read as: byte 0 picks the status (200, 400, 401, 429, 500, 503, 302, 204, or 100–999 from
/// bytes 0–1), byte 1 the endpoint and grant, then the `Retry-After` value up to the first newline, then the
/// body. Properties: an accepted token answer has tokens of 1…8,192 visible ASCII characters, `expires_in` in
/// 1…Int32.max, and for a code exchange a refresh and an identity token; a 429 is `rate_limited` with
/// delay-seconds in 0…86,400 or none; a 5xx is `server_error`; a revoke is accepted exactly on 200; every
/// refusal's description is one line that repeats no token of the body, and no description of an accepted
/// answer shows a token.
enum AppleResponseTarget {
    static let target = FuzzTarget(
        name: "apple-response",
        summary:
            "Apple REST answers: accepted tokens visible ASCII within limits, 429/5xx classified, descriptions one line and never a token",
        check: check)

    static let statuses = [200, 400, 401, 429, 500, 503, 302, 204]

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        guard bytes.count >= 2 else { return }
        let status =
            Int(bytes[0]) < statuses.count * 16
            ? statuses[Int(bytes[0]) % statuses.count] : 100 + (Int(bytes[0]) << 8 | Int(bytes[1])) % 900
        let rest = bytes[2...]
        let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        let retryAfter = newline == rest.startIndex ? nil : String(decoding: rest[..<newline], as: UTF8.self)
        let body = Array(rest[(newline == rest.endIndex ? newline : newline + 1)...])
        let tokens = bodyTokens(body)

        switch bytes[1] % 3 {
        case 0, 1:
            let grant: AppleGrant = bytes[1] % 3 == 0 ? .authorizationCode : .refreshToken
            switch AppleResponseDecoder.token(status: status, retryAfter: retryAfter, body: body, grant: grant) {
            case .success(let answer):
                try require(status == 200, "a \(status) answer was accepted")
                for token in [answer.accessToken.value, answer.refreshToken?.value, answer.idToken?.value] {
                    guard let token else { continue }
                    try require(
                        (1...AppleResponseDecoder.maximumTokenLength).contains(token.utf8.count)
                            && token.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E },
                        "an accepted token is empty, too long or not visible ASCII")
                }
                try require(
                    answer.expiresIn >= 1 && answer.expiresIn <= AppleResponseDecoder.maximumExpiresIn,
                    "expires_in \(answer.expiresIn) out of range")
                if grant == .authorizationCode {
                    try require(answer.refreshToken != nil && answer.idToken != nil, "a code exchange lacks tokens")
                }
                try noToken(in: answer.description, of: tokens)
            case .failure(let error):
                try classified(error, status: status, retryAfter: retryAfter, tokens: tokens)
            }
        default:
            switch AppleResponseDecoder.revocation(status: status, retryAfter: retryAfter, body: body) {
            case .success: try require(status == 200, "a revoke answered \(status) was accepted")
            case .failure(let error):
                try require(status != 200, "a revoke answered 200 was refused")
                try classified(error, status: status, retryAfter: retryAfter, tokens: tokens)
            }
        }
    }

    static func classified(
        _ error: AppleAPIError, status: Int, retryAfter: String?, tokens: [String]
    ) throws(PropertyFailure) {
        let line = error.description
        try require(!line.contains("\n") && !line.contains("\r"), "the refusal is not one line")
        try noToken(in: line, of: tokens)
        if status == 429 {
            guard case .rateLimited(let seconds) = error else { throw PropertyFailure("429 became \(error.code)") }
            try require(
                seconds.map { (0...AppleResponseDecoder.maximumRetryAfterSeconds).contains($0) } ?? true,
                "Retry-After \(seconds ?? -1) out of range")
            if let retryAfter, retryAfter.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !retryAfter.isEmpty {
                try require(seconds != nil, "delta-seconds \(retryAfter) was not read")
            }
        } else if (500...599).contains(status) {
            try require(error == .serverError(status: status), "\(status) became \(error.code)")
        }
    }

    /// The string members of a JSON body that look like tokens: what no description may repeat. Like Apple's
    /// tokens they are 16 or more visible characters with a digit and a capital letter, which no fixed phrase
    /// of a description has (`unsupported_grant_type`, `malformed_response`, `Bearer`), so a match is an echo.
    static func bodyTokens(_ body: [UInt8]) -> [String] {
        guard case .object(let members)? = JSONValue.parseIfValid(body) else { return [] }
        return members.members.compactMap { member in
            guard case .string(let text) = member.value else { return nil }
            let bytes = text.utf8
            guard bytes.count >= 16, bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }),
                bytes.contains(where: { $0 >= 0x30 && $0 <= 0x39 }), bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A })
            else { return nil }
            return text
        }
    }

    static func noToken(in description: String, of tokens: [String]) throws(PropertyFailure) {
        for token in tokens where description.contains(token) {
            throw PropertyFailure("a description repeats a token of the body: \(description)")
        }
    }
}
