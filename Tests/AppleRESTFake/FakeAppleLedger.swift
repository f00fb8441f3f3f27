import LifecycleCore
import LifecycleCrypto

/// The token state of the stand-in for Apple: issued codes, and one grant per code exchange holding its
/// refresh token and the access tokens derived from it. A plain value, mutated under the server's mutex.
///
/// Rules, as Apple documents them ("Generate and validate tokens", "Revoke tokens", TN3194): a code is single
/// use and valid five minutes, only for the client ID it was issued to, and with the `redirect_uri` it was
/// issued with; a refresh token works until its grant is revoked or the user ends the authorization out of
/// band; revoking any token of a grant ends the whole grant; a revoke of a token the server does not know, or
/// of another client's token, still answers 200 and changes nothing.
struct FakeAppleLedger {
    struct Code {
        var clientID: String
        var subject: String
        var redirectURI: String?
        var issuedAt: Instant
        var used = false
    }

    struct Grant {
        var clientID: String
        var subject: String
        var refreshToken: String
        var accessTokens: [String: Instant] = [:]
        /// Ended by `/auth/revoke`.
        var revokedAt: Instant?
        /// Ended by the user outside the app (Settings, account deletion): the lost-notification case.
        var invalidatedAt: Instant?

        var isActive: Bool { revokedAt == nil && invalidatedAt == nil }
    }

    enum Failure: String, Error {
        case invalidGrant = "invalid_grant"
        case invalidClient = "invalid_client"
    }

    struct Issued {
        var accessToken: String
        var refreshToken: String?
        var clientID: String
        var subject: String
    }

    var codeLifetimeSeconds: Int64
    var accessTokenLifetimeSeconds: Int64
    var codes: [String: Code] = [:]
    var grants: [Grant] = []
    /// Refresh and access token → index in `grants`.
    var refreshIndex: [String: Int] = [:]
    var accessIndex: [String: Int] = [:]

    mutating func issueCode(clientID: String, subject: String, redirectURI: String?, at now: Instant) -> String {
        let code = "c" + Self.random() + ".0.fake"
        codes[code] = Code(clientID: clientID, subject: subject, redirectURI: redirectURI, issuedAt: now)
        return code
    }

    mutating func exchange(
        code: String, clientID: String, redirectURI: String?, at now: Instant
    ) -> Result<Issued, Failure> {
        guard var entry = codes[code], entry.clientID == clientID else { return .failure(.invalidGrant) }
        // Apple lists a mismatched redirect URI under invalid_client ("ErrorResponse").
        guard entry.redirectURI == redirectURI else { return .failure(.invalidClient) }
        let age = now.millisecondsSinceEpoch &- entry.issuedAt.millisecondsSinceEpoch
        guard !entry.used, age <= codeLifetimeSeconds &* 1000 else { return .failure(.invalidGrant) }
        entry.used = true
        codes[code] = entry
        let refreshToken = "r" + Self.random() + ".0.fake"
        var grant = Grant(clientID: clientID, subject: entry.subject, refreshToken: refreshToken)
        let accessToken = "a" + Self.random() + ".0.fake"
        grant.accessTokens[accessToken] = now.adding(seconds: accessTokenLifetimeSeconds)
        grants.append(grant)
        refreshIndex[refreshToken] = grants.count - 1
        accessIndex[accessToken] = grants.count - 1
        return .success(
            Issued(accessToken: accessToken, refreshToken: refreshToken, clientID: clientID, subject: entry.subject))
    }

    mutating func refresh(_ refreshToken: String, clientID: String, at now: Instant) -> Result<Issued, Failure> {
        guard let index = refreshIndex[refreshToken], grants[index].clientID == clientID, grants[index].isActive
        else { return .failure(.invalidGrant) }
        let accessToken = "a" + Self.random() + ".0.fake"
        grants[index].accessTokens[accessToken] = now.adding(seconds: accessTokenLifetimeSeconds)
        accessIndex[accessToken] = index
        return .success(
            Issued(accessToken: accessToken, refreshToken: nil, clientID: clientID, subject: grants[index].subject))
    }

    /// Ends the grant of `token` when it is this client's and still active; true when something was revoked.
    mutating func revoke(_ token: String, clientID: String, at now: Instant) -> Bool {
        guard let index = refreshIndex[token] ?? accessIndex[token], grants[index].clientID == clientID,
            grants[index].isActive
        else { return false }
        grants[index].revokedAt = now
        return true
    }

    /// The user ends every authorization of `subject` outside the app; returns how many grants ended.
    mutating func invalidate(subject: String, at now: Instant) -> Int {
        var count = 0
        for index in grants.indices where grants[index].subject == subject && grants[index].isActive {
            grants[index].invalidatedAt = now
            count += 1
        }
        return count
    }

    func isActive(refreshToken: String) -> Bool {
        guard let index = refreshIndex[refreshToken] else { return false }
        return grants[index].isActive
    }

    func isActive(accessToken: String, at now: Instant) -> Bool {
        guard let index = accessIndex[accessToken], grants[index].isActive,
            let expiry = grants[index].accessTokens[accessToken]
        else { return false }
        return now < expiry
    }

    private static func random() -> String { Hex.encode(SecureRandom.bytes(count: 16)) }
}
