import AppleAccountAPI
import LifecycleCrypto
import Testing

@Suite("Apple credentials, base URL and form encoding")
struct AppleCredentialsTests {
    @Test(
        "team and key IDs must be ten characters A-Z/0-9, and the error names the field and the value",
        arguments: [
            ("teamID", "ABC", AppleTestCredentials.keyID), ("teamID", "teama1b2c3", AppleTestCredentials.keyID),
            ("teamID", "TEAM A1B2C", AppleTestCredentials.keyID), ("keyID", AppleTestCredentials.teamID, ""),
            ("keyID", AppleTestCredentials.teamID, "KEYA1B2C3DX"),
        ])
    func identifiers(field: String, teamID: String, keyID: String) {
        let error = #expect(throws: AppleCredentialsError.self) {
            try AppleCredentials(
                teamID: teamID, keyID: keyID, privateKey: AppleTestCredentials.key,
                clients: [AppleTestCredentials.native])
        }
        #expect(error?.field == field)
        #expect(error?.description.contains("\"\(field == "teamID" ? teamID : keyID)\"") == true)
        #expect(error?.description.contains("\n") == false)
    }

    @Test("no client, a repeated client ID or a client ID with spaces is refused")
    func clients() {
        for clients in [
            [], [AppleTestCredentials.native, AppleTestCredentials.native],
            [AppleClient(id: "com.example shop", kind: .native)], [AppleClient(id: "", kind: .web)],
        ] as [[AppleClient]] {
            let error = #expect(throws: AppleCredentialsError.self) {
                try AppleCredentials(
                    teamID: AppleTestCredentials.teamID, keyID: AppleTestCredentials.keyID,
                    privateKey: AppleTestCredentials.key, clients: clients)
            }
            #expect(error?.field == "clients")
        }
    }

    @Test("a .p8 that is not a P-256 private key is refused as privateKey, naming the file to use")
    func privateKeyFile() throws {
        let rsa = try RSAPrivateKey.generate().pemPKCS8()
        let error = #expect(throws: AppleCredentialsError.self) {
            try AppleCredentials(
                teamID: AppleTestCredentials.teamID, keyID: AppleTestCredentials.keyID, privateKeyPEM: rsa,
                clients: [AppleTestCredentials.native])
        }
        #expect(error?.field == "privateKey")
        #expect(error?.description.contains("AuthKey_") == true)
        let good = try AppleCredentials(
            teamID: AppleTestCredentials.teamID, keyID: AppleTestCredentials.keyID,
            privateKeyPEM: try AppleTestCredentials.key.pemPKCS8(), clients: [AppleTestCredentials.native])
        #expect(good.client(AppleTestCredentials.native.id)?.kind == .native)
        #expect(!good.description.contains("PRIVATE"))
    }

    @Test(
        "base URLs: https origins with an optional port and path prefix",
        arguments: [
            ("https://appleid.apple.com", "appleid.apple.com", 443, "", "https://appleid.apple.com"),
            ("https://appleid.apple.com/", "appleid.apple.com", 443, "", "https://appleid.apple.com"),
            ("https://127.0.0.1:8443", "127.0.0.1", 8443, "", "https://127.0.0.1:8443"),
            ("https://Proxy.Example:443/apple/", "proxy.example", 443, "/apple", "https://proxy.example/apple"),
            ("https://[::1]:9443/x", "::1", 9443, "/x", "https://[::1]:9443/x"),
        ])
    func baseURLs(text: String, host: String, port: Int, prefix: String, normalised: String) throws {
        let url = try AppleBaseURL.parse(text).get()
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.pathPrefix == prefix)
        #expect(url.description == normalised)
        #expect(url.target("/auth/token") == prefix + "/auth/token")
    }

    @Test(
        "base URLs that could send tokens somewhere unexpected are refused",
        arguments: [
            "http://appleid.apple.com", "appleid.apple.com", "https://", "https://:443", "https://host:0",
            "https://host:65536", "https://host:44a", "https://host/a?b=c", "https://host/#x",
            "https://user@host", "https://a:1:2", "https://[::1", "https://host//x", "https://ho st",
            // Found by fuzzing: the host `[Z` printed back as a URL that does not parse.
            "https://[[Z]:118", "https://ho[st", "https://host]",
            // A control or non-ASCII byte in the path would split or change the request line.
            "https://host/x\r\nHost: evil", "https://host/a\tb", "https://host/é",
        ])
    func badBaseURLs(text: String) {
        guard case .failure(let error) = AppleBaseURL.parse(text) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(error.field == "baseURL")
    }

    @Test("form encoding keeps the unreserved characters and escapes the rest (WHATWG URL §5.2)")
    func formEncoding() {
        let body = FormURLEncoding.encode([
            ("client_id", "com.example.shop"), ("redirect_uri", "https://shop.example/cb?a=1&b=2"),
            ("note", "a b+c*~é"),
        ])
        #expect(
            String(decoding: body, as: UTF8.self)
                == "client_id=com.example.shop&redirect_uri=https%3A%2F%2Fshop.example%2Fcb%3Fa%3D1%26b%3D2"
                + "&note=a+b%2Bc*%7E%C3%A9")
    }
}
