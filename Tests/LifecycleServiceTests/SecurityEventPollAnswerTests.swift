import LifecycleCore
import Testing

@testable import LifecycleEngine

/// The poll worker's pure parts: the RFC 8936 answer it reads, the request it sends and its backoff.
@Suite("RFC 8936 poll answer, request and backoff")
struct SecurityEventPollAnswerTests {
    @Test("an answer keeps its SETs in document order with moreAvailable")
    func decodes() throws {
        let answer = try SecurityEventPollAnswer.decode(
            Array(#"{"sets":{"b":"x.y.z","a":"p.q.r"},"moreAvailable":true}"#.utf8)
        ).get()
        #expect(answer.sets.map(\.jti) == ["b", "a"])
        #expect(answer.sets.map { String(decoding: $0.set, as: UTF8.self) } == ["x.y.z", "p.q.r"])
        #expect(answer.moreAvailable)
        let empty = try SecurityEventPollAnswer.decode(Array(#"{"sets":{}}"#.utf8)).get()
        #expect(empty.sets.isEmpty && !empty.moreAvailable)
    }

    @Test(
        "anything but RFC 8936 §2.2's shape is refused with one line quoting none of it",
        arguments: [
            ("not json", "not JSON"), (#"["sets"]"#, "not a JSON object"), (#"{"moreAvailable":true}"#, "no sets"),
            (#"{"sets":[]}"#, "sets is"), (#"{"sets":{"a":1}}"#, "member 0 of sets"),
            (#"{"sets":{"":"x"}}"#, "jti of 0 bytes"), (#"{"sets":{},"moreAvailable":"yes"}"#, "moreAvailable is"),
            (#"{"sets":{"a":"secret-token-value"},"sets":{}}"#, "not JSON"),
        ])
    func refuses(text: String, expected: String) {
        guard case .failure(let error) = SecurityEventPollAnswer.decode(Array(text.utf8)) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(error.description.contains(expected), "\(error)")
        #expect(!error.description.contains("secret-token-value"))
    }

    @Test("the request carries maxEvents, returnImmediately, ack in order and setErrs with err and description")
    func request() {
        let request = SecurityEventPollRequest(
            maxEvents: 25, ack: ["j2", "j1"],
            setErrs: [("j3", .init(err: "invalid_audience", description: "aud is not this receiver"))])
        let json = request.json
        #expect(json["maxEvents"] == 25)
        #expect(json["returnImmediately"] == true)
        #expect(json["ack"] == ["j2", "j1"])
        #expect(json["setErrs"]?["j3"]?["err"] == "invalid_audience")
        #expect(json["setErrs"]?["j3"]?["description"] == "aud is not this receiver")
        #expect(SecurityEventPollRequest(maxEvents: 10).json["ack"] == nil, "no empty ack member")
    }

    @Test("failed polls wait the interval doubled per failure in a row, capped")
    func backoff() {
        var stream = SignalStreamConfiguration(discovery: "https://idp.example/.well-known/ssf-configuration")
        stream.pollIntervalMilliseconds = 100
        stream.pollBackoffMaxMilliseconds = 700
        let waits = (1...6).map { SecurityEventPoller.backoff(stream, failures: $0) }
        #expect(waits == [100, 200, 400, 700, 700, 700].map { Duration.milliseconds($0) })
        stream.pollBackoffMaxMilliseconds = 300_000
        #expect(SecurityEventPoller.backoff(stream, failures: Int.max / 2) == .milliseconds(300_000))
    }
}
