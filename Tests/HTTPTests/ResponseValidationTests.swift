import HTTP1
import HTTPServer
import Testing

@Suite("Responses are built only from validated values")
struct ResponseValidationTests {
    @Test(
        "header values with CR, LF or NUL are refused",
        arguments: ["a\r\nSet-Cookie: x=1", "a\nb", "a\rb", "a\u{0}b"])
    func controlCharactersRefused(value: String) {
        #expect(throws: HTTPField.ValidationError.invalidValue(fieldName: "X-Test")) {
            try HTTPField(name: "X-Test", value: value)
        }
    }

    @Test("header names must be tokens", arguments: ["", "Bad Name", "Bad:Name", "Bad\r\nName"])
    func namesMustBeTokens(name: String) {
        #expect(throws: HTTPField.ValidationError.self) { try HTTPField(name: name, value: "v") }
    }

    @Test("status codes outside 100...999 are refused")
    func statusRange() throws {
        #expect(throws: HTTPStatus.ValidationError.codeOutOfRange(42)) { try HTTPStatus(code: 42) }
        #expect(try HTTPStatus(code: 418).reasonPhrase == "")
        #expect(try HTTPStatus(code: 404).reasonPhrase == "Not Found")
    }

    @Test("JSON responses carry sorted keys and the JSON media type")
    func jsonResponse() throws {
        struct Body: Encodable {
            let status: String
            let code: Int
        }
        let response = try HTTPResponse.json(Body(status: "accepted", code: 1))
        #expect(response.body.text == #"{"code":1,"status":"accepted"}"#)
        #expect(response.headers["content-type"] == "application/json")
    }

    @Test("405 carries Allow, and the routing helper passes allowed methods through")
    func methodNotAllowed() {
        #expect(HTTPResponse.rejectingMethod("POST", allowed: ["POST"]) == nil)
        let response = HTTPResponse.rejectingMethod("GET", allowed: ["POST", "PUT"])
        #expect(response?.status == .methodNotAllowed)
        #expect(response?.headers["Allow"] == "POST, PUT")
    }

    @Test("framing fields set by a handler are replaced by the server's own")
    func serverOwnsFraming() async throws {
        let handler: HTTPServer.Handler = { _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "X-Kept": "yes"],
                body: Array("abc".utf8))
        }
        try await withServer(handler: handler) { _, port in
            let connection = try RawConnection(port: port)
            connection.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = try #require(await connection.readResponse())
            #expect(response.header("Content-Length") == "3")
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("X-Kept") == "yes")
            #expect(response.bodyText == "abc")
        }
    }
}
