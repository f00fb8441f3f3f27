import LifecycleCore

/// The optional JSON body of `link`: `{"eventTime"?, "authorizationCode"?, "redirectUri"?, "clientId"?}` or
/// `{"eventTime"?, "refreshToken"?, "clientId"?}`. A code or a refresh token makes the service keep the
/// account's Apple refresh token (``AccountOperations/link(app:subject:request:)``). Values are never repeated
/// in a refusal: they are credentials.
package struct LinkRequestBody: Sendable, Hashable {
    /// What the app hands over with the sign-in.
    package enum Credential: Sendable, Hashable {
        /// The authorization code of the sign-in, with the `redirect_uri` of a web authorization.
        case authorizationCode(String, redirectURI: String?)
        /// A refresh token the app already holds.
        case refreshToken(String)
    }

    package var eventTime: Instant?
    package var credential: Credential?
    /// The client ID the code or token was issued to; default: the app's only client of the kind the body
    /// implies (web with a `redirectUri`, else native).
    package var clientID: String?

    /// Longest code, token, redirect URI or client ID accepted: Apple's are well under 1 KiB.
    package static let maximumValueLength = 8_192

    package init(eventTime: Instant? = nil, credential: Credential? = nil, clientID: String? = nil) {
        self.eventTime = eventTime
        self.credential = credential
        self.clientID = clientID
    }

    package static func parse(_ body: [UInt8]) throws(AdminError) -> LinkRequestBody {
        guard body.contains(where: { !isWhitespace($0) }) else { return LinkRequestBody() }
        guard let document = JSONValue.parseIfValid(body), case .object(let members) = document else {
            throw AdminError.badRequest(.malformedBody, "the body must be a JSON object")
        }
        var request = LinkRequestBody()
        var code: String?
        var redirectURI: String?
        var refreshToken: String?
        for member in members {
            switch member.key {
            case "eventTime":
                request.eventTime = try AdminRequestBody.instant(member.value)
            case "authorizationCode": code = try value(member)
            case "redirectUri": redirectURI = try value(member)
            case "refreshToken": refreshToken = try value(member)
            case "clientId": request.clientID = try value(member)
            default:
                throw AdminError.unknownMember(
                    member.key, accepted: ["eventTime", "authorizationCode", "redirectUri", "refreshToken", "clientId"])
            }
        }
        switch (code, refreshToken) {
        case (let code?, nil):
            request.credential = .authorizationCode(code, redirectURI: redirectURI)
        case (nil, let token?):
            guard redirectURI == nil else {
                throw AdminError.unprocessable(.invalidBody, "redirectUri goes with an authorizationCode only")
            }
            request.credential = .refreshToken(token)
        case (nil, nil):
            guard redirectURI == nil, request.clientID == nil else {
                throw AdminError.unprocessable(
                    .invalidBody, "redirectUri and clientId go with an authorizationCode or a refreshToken")
            }
        case (.some, .some):
            throw AdminError.unprocessable(.invalidBody, "send either authorizationCode or refreshToken, not both")
        }
        return request
    }

    /// A string member of 1…``maximumValueLength`` visible ASCII characters (what Apple's codes, tokens, client
    /// IDs and registered redirect URIs are); the refusal names the member, never its value.
    private static func value(_ member: JSONObject.Member) throws(AdminError) -> String {
        guard let text = member.value.stringValue, !text.isEmpty, text.utf8.count <= maximumValueLength,
            text.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E })
        else {
            throw AdminError.unprocessable(
                .invalidBody,
                "\(member.key) must be a string of 1 to \(maximumValueLength) visible ASCII characters")
        }
        return text
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
