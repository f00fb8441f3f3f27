import LifecycleCore

/// Turns an HTTP answer of Apple's REST API into a typed result. Pure and total: any status, header value or
/// body gives a result, never a trap, so it is safe on whatever the network delivers.
///
/// - 200 on `/auth/token`: a JSON object with `access_token`, `token_type` `Bearer`, `expires_in` (a positive
///   integer), and for a code exchange `refresh_token` and `id_token` (Apple, "TokenResponse"). A token is
///   1…``maximumTokenLength`` visible ASCII characters. Unknown members are ignored; a member of the wrong type
///   is `malformed_response` naming it.
/// - 200 on `/auth/revoke`: success whatever the body (Apple answers 200 with an empty body, also for a token it
///   does not know: a 200 proves nothing about the token, "Revoke tokens").
/// - 429: `rate_limited` with `Retry-After` when it is delta-seconds (RFC 9110 §10.2.3), capped at
///   ``maximumRetryAfterSeconds``.
/// - 5xx: `server_error`.
/// - 4xx with `{"error": …}` naming one of Apple's six OAuth errors: that error. Anything else:
///   `malformed_response`.
public enum AppleResponseDecoder {
    /// Longest token accepted. Apple's refresh tokens are about 70 characters and `id_token`s under 1 KiB.
    public static let maximumTokenLength = 8_192
    /// Largest `Retry-After` honoured: one day. A larger value is read as this cap.
    public static let maximumRetryAfterSeconds: Int64 = 86_400
    /// Largest `expires_in` accepted, in seconds (about 68 years; Apple answers 3600).
    public static let maximumExpiresIn = Int64(Int32.max)

    public static func token(
        status: Int, retryAfter: String?, body: [UInt8], grant: AppleGrant
    ) -> Result<AppleTokenResponse, AppleAPIError> {
        guard status == 200 else { return .failure(failure(status: status, retryAfter: retryAfter, body: body)) }
        guard case .object(let members)? = JSONValue.parseIfValid(body) else {
            return .failure(.malformedResponse("the 200 answer is not a JSON object"))
        }
        do throws(AppleAPIError) {
            let accessToken = try requiredToken(members, "access_token")
            guard case .string(let tokenType)? = members["token_type"] else {
                throw .malformedResponse("token_type is missing or not a string")
            }
            guard tokenType.lowercased() == "bearer" else {
                throw .malformedResponse("token_type is not Bearer")
            }
            guard case .integer(let expiresIn)? = members["expires_in"] else {
                throw .malformedResponse("expires_in is missing or not an integer")
            }
            guard expiresIn > 0, expiresIn <= maximumExpiresIn else {
                throw .malformedResponse("expires_in is not between 1 and \(maximumExpiresIn)")
            }
            let refreshToken = try optionalToken(members, "refresh_token")
            let idToken = try optionalToken(members, "id_token")
            if grant == .authorizationCode {
                guard refreshToken != nil else { throw .malformedResponse("refresh_token is missing") }
                guard idToken != nil else { throw .malformedResponse("id_token is missing") }
            }
            return .success(
                AppleTokenResponse(
                    accessToken: AppleAccessToken(accessToken), tokenType: tokenType, expiresIn: expiresIn,
                    refreshToken: refreshToken.map(AppleRefreshToken.init),
                    idToken: idToken.map(AppleIdentityToken.init)))
        } catch {
            return .failure(error)
        }
    }

    public static func revocation(status: Int, retryAfter: String?, body: [UInt8]) -> Result<Void, AppleAPIError> {
        status == 200 ? .success(()) : .failure(failure(status: status, retryAfter: retryAfter, body: body))
    }

    /// The error of any answer other than 200.
    public static func failure(status: Int, retryAfter: String?, body: [UInt8]) -> AppleAPIError {
        if status == 429 { return .rateLimited(retryAfterSeconds: retryAfterSeconds(retryAfter)) }
        if (500...599).contains(status) { return .serverError(status: status) }
        guard (400...499).contains(status) else {
            return .malformedResponse("unexpected HTTP status \(status)")
        }
        guard case .object(let members)? = JSONValue.parseIfValid(body) else {
            return .malformedResponse("HTTP \(status) without a JSON error object")
        }
        guard case .string(let value)? = members["error"] else {
            return .malformedResponse("HTTP \(status) without a string \"error\"")
        }
        guard let error = AppleAPIError.oauth(value) else {
            // The value itself is not repeated: it is the server's text and could be anything, a token included.
            return .malformedResponse("HTTP \(status) with an error value Apple does not define")
        }
        return error
    }

    /// `Retry-After` as delta-seconds (`1*DIGIT`), capped; nil when absent or in HTTP-date form.
    public static func retryAfterSeconds(_ value: String?) -> Int64? {
        guard let value else { return nil }
        let digits = Array(
            value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
                .reversed())
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var seconds: Int64 = 0
        for digit in digits {
            let (shifted, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit - 0x30))
            if overflow1 || overflow2 || sum > maximumRetryAfterSeconds { return maximumRetryAfterSeconds }
            seconds = sum
        }
        return seconds
    }

    private static func requiredToken(_ members: JSONObject, _ name: String) throws(AppleAPIError) -> String {
        guard let token = try optionalToken(members, name) else { throw .malformedResponse("\(name) is missing") }
        return token
    }

    /// A token member: absent (nil) or 1…``maximumTokenLength`` characters from `!` to `~` (RFC 6749
    /// Appendix A.12's VSCHAR without space, which no Apple token contains).
    private static func optionalToken(_ members: JSONObject, _ name: String) throws(AppleAPIError) -> String? {
        guard let member = members[name] else { return nil }
        guard case .string(let token) = member else { throw .malformedResponse("\(name) is not a string") }
        let bytes = token.utf8
        guard !bytes.isEmpty, bytes.count <= maximumTokenLength, bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw .malformedResponse("\(name) is empty, too long or not visible ASCII")
        }
        return token
    }
}
