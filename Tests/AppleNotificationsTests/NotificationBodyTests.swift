import AppleNotifications
import LifecycleCore
import TestSupport
import Testing

private func httpCode(_ body: [UInt8]) -> ReasonCode? {
    if case .failure(let error) = NotificationBody.extractJWS(fromHTTPBody: body) { return error.code }
    return nil
}

@Suite("Notification body")
struct NotificationBodyTests {
    let jws = TestTokenFactory().token()

    @Test("the JWS is taken from {\"payload\": …}, with whitespace tolerated")
    func jsonBody() throws {
        #expect(try NotificationBody.extractJWS(fromHTTPBody: NotificationBody.encode(jws: jws)).get() == jws)
        let spaced = Array("\r\n  { \"payload\" : \"\(jws)\" , \"other\": 1 }\n".utf8)
        #expect(try NotificationBody.extractJWS(fromHTTPBody: spaced).get() == jws)
    }

    @Test("a form-encoded payload= body is accepted whatever the content type said")
    func formBody() throws {
        #expect(try NotificationBody.extractJWS(fromHTTPBody: Array("payload=\(jws)".utf8)).get() == jws)
        #expect(try NotificationBody.extractJWS(fromHTTPBody: Array("a=1&payload=\(jws)&b=".utf8)).get() == jws)
        let escaped = jws.replacingOccurrences(of: ".", with: "%2E")
        #expect(try NotificationBody.extractJWS(fromHTTPBody: Array("payload=\(escaped)".utf8)).get() == jws)
    }

    @Test("a JSON body without payload, or with a non-string payload, is missing_payload")
    func missingPayload() {
        #expect(httpCode(Array("{}".utf8)) == .missingPayload)
        #expect(httpCode(Array("{\"token\":\"\(jws)\"}".utf8)) == .missingPayload)
        #expect(httpCode(Array("{\"payload\":42}".utf8)) == .missingPayload)
        #expect(httpCode(Array("{\"payload\":\"\"}".utf8)) == .missingPayload)
        #expect(httpCode(Array("a=1&b=2".utf8)) == .missingPayload)
        #expect(httpCode(Array("payload=".utf8)) == .missingPayload)
    }

    @Test("a bare JWS is not a valid HTTP body, and the error says what was expected")
    func bareJWSInHTTPBody() {
        guard case .failure(let error) = NotificationBody.extractJWS(fromHTTPBody: Array((jws + "\n").utf8)) else {
            Issue.record("a bare JWS must be refused")
            return
        }
        #expect(error.code == .missingPayload)
        #expect(error.description.contains("payload"))
        #expect(!error.description.contains(jws))
    }

    @Test("the CLI path accepts a bare JWS as well as a body")
    func cliAcceptsBoth() throws {
        #expect(try NotificationBody.extractJWS(fromBodyOrToken: Array("  \(jws)\n".utf8)).get() == jws)
        #expect(try NotificationBody.extractJWS(fromBodyOrToken: NotificationBody.encode(jws: jws)).get() == jws)
        #expect(try NotificationBody.extractJWS(fromBodyOrToken: Array("payload=\(jws)".utf8)).get() == jws)
    }

    @Test(
        "bodies that are not JSON or form are malformed_body",
        arguments: [
            [UInt8](), Array("   ".utf8), Array("{\"payload\": ".utf8), Array("hello world".utf8),
            Array("<xml/>".utf8), Array("payload=%zz".utf8),
        ])
    func malformedBody(body: [UInt8]) {
        #expect(httpCode(body) == .malformedBody)
    }

    @Test("non-UTF-8 bytes are malformed_body on both paths")
    func nonUTF8() {
        let bytes: [UInt8] = [0x7B, 0x22, 0x70, 0xFF, 0xFE, 0x7D]
        #expect(httpCode(bytes) == .malformedBody)
        guard case .failure(let error) = NotificationBody.extractJWS(fromBodyOrToken: [0xC3, 0x28]) else {
            Issue.record("expected malformed_body")
            return
        }
        #expect(error.code == .malformedBody)
    }

    @Test("a body-extracted token verifies end to end")
    func endToEnd() async throws {
        let factory = TestTokenFactory()
        let extracted = try NotificationBody.extractJWS(fromHTTPBody: NotificationBody.encode(jws: jws)).get()
        let result = await factory.verifier().verify(jws: extracted, at: TestFixtures.issuedAt)
        #expect(try result.get().jti == TestFixtures.jti)
    }

    /// Regression: `!!!.<payload>.<sig>` was classified as a body that is neither JSON nor form.
    @Test("a bare token whose header holds non-base64url bytes reaches the JWS parser: malformed_jws")
    func nonBase64HeaderIsMalformedJWS() throws {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        let hostile = "!!!.\(parts[1]).\(parts[2])"
        let token = try NotificationBody.extractJWS(fromBodyOrToken: Array(hostile.utf8)).get()
        #expect {
            try CompactJWS(parsing: Array(token.utf8))
        } throws: { error in
            (error as? VerificationError)?.code == .malformedJWS
        }
        // In an HTTP body it is still a bare token, which the endpoint refuses as such.
        #expect(httpCode(Array(hostile.utf8)) == .missingPayload)
    }
}
