import AppleAccountAPI
import LifecycleCore
import Testing

private func body(_ object: JSONObject) -> [UInt8] { JSONValue.object(object).encoded() }

private let exchangeAnswer: JSONObject = [
    "access_token": .string("a1b2.0.access"), "token_type": .string("Bearer"), "expires_in": .integer(3_600),
    "refresh_token": .string("r1b2.0.refresh"), "id_token": .string("eyJh.eyJp.c2ln"),
]

private func decodeExchange(_ object: JSONObject) -> Result<AppleTokenResponse, AppleAPIError> {
    AppleResponseDecoder.token(status: 200, retryAfter: nil, body: body(object), grant: .authorizationCode)
}

@Suite("Decoding Apple's answers")
struct AppleResponseDecoderTests {
    @Test("a code exchange answer decodes into typed tokens")
    func exchange() throws {
        let tokens = try decodeExchange(exchangeAnswer).get()
        #expect(tokens.accessToken.value == "a1b2.0.access")
        #expect(tokens.refreshToken?.value == "r1b2.0.refresh")
        #expect(tokens.idToken?.value == "eyJh.eyJp.c2ln")
        #expect(tokens.expiresIn == 3_600)
        #expect(tokens.tokenType == "Bearer")
    }

    @Test("a refresh answer may lack refresh_token and id_token, a code exchange answer may not")
    func refreshOptionalMembers() throws {
        var refreshAnswer = exchangeAnswer
        refreshAnswer["refresh_token"] = nil
        refreshAnswer["id_token"] = nil
        let refreshed = try AppleResponseDecoder.token(
            status: 200, retryAfter: nil, body: body(refreshAnswer), grant: .refreshToken
        ).get()
        #expect(refreshed.refreshToken == nil)
        #expect(refreshed.idToken == nil)
        #expect(decodeExchange(refreshAnswer).failure == .malformedResponse("refresh_token is missing"))
        var noIDToken = exchangeAnswer
        noIDToken["id_token"] = nil
        #expect(decodeExchange(noIDToken).failure == .malformedResponse("id_token is missing"))
    }

    @Test(
        "a 200 whose members are missing, mistyped or out of range is malformed_response naming the member",
        arguments: [
            ("access_token", nil, "access_token"), ("access_token", .integer(1), "access_token"),
            ("access_token", .string(""), "access_token"), ("access_token", .string("has space"), "access_token"),
            ("access_token", .string(String(repeating: "a", count: 8_193)), "access_token"),
            ("token_type", nil, "token_type"), ("token_type", .string("mac"), "token_type"),
            ("expires_in", nil, "expires_in"), ("expires_in", .string("3600"), "expires_in"),
            ("expires_in", .number(3600.5), "expires_in"), ("expires_in", .integer(0), "expires_in"),
            ("expires_in", .integer(-1), "expires_in"), ("expires_in", .integer(.max), "expires_in"),
            ("refresh_token", .null, "refresh_token"), ("id_token", .bool(true), "id_token"),
            ("id_token", .string("eyJ\u{1}"), "id_token"),
        ] as [(String, JSONValue?, String)])
    func strictMembers(member: String, value: JSONValue?, named: String) {
        var answer = exchangeAnswer
        answer[member] = value
        guard case .malformedResponse(let reason)? = decodeExchange(answer).failure else {
            Issue.record("\(member) = \(String(describing: value)) was accepted")
            return
        }
        #expect(reason.hasPrefix(named))
    }

    @Test("token_type is compared case-insensitively and unknown members are ignored")
    func lenientWhereTheRFCIs() throws {
        var answer = exchangeAnswer
        answer["token_type"] = .string("bearer")
        answer["scope"] = .string("name email")
        #expect(try decodeExchange(answer).get().tokenType == "bearer")
    }

    @Test("a 200 that is not a JSON object, or has duplicate members, is malformed")
    func notAnObject() {
        for raw in ["", "[]", "null", "{", #"{"access_token":"a","access_token":"b"}"#, "<html>ok</html>"] {
            let result = AppleResponseDecoder.token(
                status: 200, retryAfter: nil, body: Array(raw.utf8), grant: .refreshToken)
            guard case .malformedResponse? = result.failure else {
                Issue.record("accepted \(raw)")
                continue
            }
        }
    }

    @Test(
        "each of Apple's six OAuth errors decodes to its case, at 400 and 401",
        arguments: [
            ("invalid_grant", AppleAPIError.invalidGrant), ("invalid_client", .invalidClient),
            ("invalid_request", .invalidRequest), ("unauthorized_client", .unauthorizedClient),
            ("unsupported_grant_type", .unsupportedGrantType), ("invalid_scope", .invalidScope),
        ])
    func oauthErrors(value: String, expected: AppleAPIError) {
        for status in [400, 401] {
            let answer = body(["error": .string(value), "error_description": .string("details")])
            #expect(AppleResponseDecoder.failure(status: status, retryAfter: nil, body: answer) == expected)
            #expect(
                AppleResponseDecoder.token(status: status, retryAfter: nil, body: answer, grant: .refreshToken).failure
                    == expected)
            #expect(AppleResponseDecoder.revocation(status: status, retryAfter: nil, body: answer).failure == expected)
        }
    }

    @Test("429 is rate_limited with Retry-After seconds, 5xx is server_error, other statuses are malformed")
    func statuses() {
        #expect(
            AppleResponseDecoder.failure(status: 429, retryAfter: "7", body: []) == .rateLimited(retryAfterSeconds: 7))
        #expect(
            AppleResponseDecoder.failure(status: 429, retryAfter: nil, body: []) == .rateLimited(retryAfterSeconds: nil)
        )
        #expect(
            AppleResponseDecoder.failure(status: 429, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT", body: [])
                == .rateLimited(retryAfterSeconds: nil))
        for status in [500, 502, 503, 504, 599] {
            #expect(
                AppleResponseDecoder.failure(status: status, retryAfter: nil, body: []) == .serverError(status: status))
        }
        for status in [100, 204, 301, 302, 404] {
            guard case .malformedResponse = AppleResponseDecoder.failure(status: status, retryAfter: nil, body: [])
            else {
                Issue.record("status \(status)")
                continue
            }
        }
        let unknown = AppleResponseDecoder.failure(status: 400, retryAfter: nil, body: body(["error": .string("nope")]))
        #expect(unknown == .malformedResponse("HTTP 400 with an error value Apple does not define"))
    }

    @Test("Retry-After: digits only, surrounding blanks allowed, overflow and large values capped at one day")
    func retryAfter() {
        #expect(AppleResponseDecoder.retryAfterSeconds(" 120 ") == 120)
        #expect(AppleResponseDecoder.retryAfterSeconds("0") == 0)
        #expect(AppleResponseDecoder.retryAfterSeconds("86401") == 86_400)
        #expect(AppleResponseDecoder.retryAfterSeconds("99999999999999999999999999") == 86_400)
        for bad in ["", "-1", "+5", "1.5", "5s", "٣"] {
            #expect(AppleResponseDecoder.retryAfterSeconds(bad) == nil, "\(bad)")
        }
    }

    @Test("a revoke answered 200 succeeds whatever the body: Apple's 200 says nothing about the token")
    func revocation() {
        for raw in ["", "{}", "garbage"] {
            #expect(AppleResponseDecoder.revocation(status: 200, retryAfter: nil, body: Array(raw.utf8)).failure == nil)
        }
    }

    @Test("decoding never traps: random bytes, mutated answers, any status, any Retry-After")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let seeds = [body(exchangeAnswer), body(["error": .string("invalid_grant")])]
        let statuses = [200, 400, 401, 429, 500, 503, 0, -1, 999, Int.max, Int.min]
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 3 == 0 {
                bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                bytes = seeds[round % 2]
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.insert(contentsOf: Array("9999999999999999999999".utf8), at: position)
                    default: bytes.remove(at: position)
                    }
                    if bytes.isEmpty { break }
                }
            }
            let status = statuses[Int.random(in: 0..<statuses.count, using: &generator)]
            let retryAfter = Bool.random(using: &generator) ? String(decoding: bytes.prefix(24), as: UTF8.self) : nil
            let grant: AppleGrant = Bool.random(using: &generator) ? .authorizationCode : .refreshToken
            let result = AppleResponseDecoder.token(status: status, retryAfter: retryAfter, body: bytes, grant: grant)
            if case .success = result { #expect(status == 200) }
            _ = AppleResponseDecoder.revocation(status: status, retryAfter: retryAfter, body: bytes)
        }
    }
}
