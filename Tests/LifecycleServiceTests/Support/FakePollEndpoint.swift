import HTTP1
import HTTPServer
import LifecycleCore
import Synchronization

/// The poll endpoint of ``FakeTransmitter`` (RFC 8936), checking what a real transmitter checks: `POST` with
/// `Authorization: Bearer <FakeStreamService.managementToken>` (else 401 `authentication_failed`) and a JSON
/// body of RFC 8936 §2.1's shape — `maxEvents` a non-negative integer, `returnImmediately` a boolean, `ack` an
/// array of strings, `setErrs` an object of `{"err": string, "description": string}` (else 400
/// `invalid_request`). It keeps each queued SET until the receiver acknowledges it or reports it in `setErrs`,
/// hands out the oldest `maxEvents` of those still held on every poll (so an unacknowledged SET is delivered
/// again), and says `moreAvailable` when it holds more. Faults can be queued to answer the next polls badly.
final class FakePollEndpoint: Sendable {
    static let path = "/ssf/poll"

    /// A bad answer for one poll, which then changes nothing.
    enum Fault: Sendable {
        case garbage
        case status(Int)
        /// A `200` whose body is `bytes` long (a JSON string in `sets`).
        case huge(bytes: Int)
        case wrongShape
    }

    struct State {
        /// SETs held, oldest first.
        var queue: [(jti: String, set: [UInt8])] = []
        /// Every `jti` acknowledged, in order (repeats kept).
        var acks: [String] = []
        /// Every `setErrs` entry received: `jti` → `err`, `description`.
        var setErrs: [String: (err: String, description: String)] = [:]
        /// Every poll's body as received, and what was answered.
        var polls: [JSONValue] = []
        var statuses: [Int] = []
        var faults: [Fault] = []
        /// When true, a poll carrying `ack` or `setErrs` is answered 503 without looking at them.
        var refuseReports = false
        /// How many times each `jti` was handed out.
        var deliveries: [String: Int] = [:]
    }

    let state = Mutex(State())

    func enqueue(_ set: [UInt8], jti: String) { state.withLock { $0.queue.append((jti, set)) } }
    func configure(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }
    var acks: [String] { state.withLock { $0.acks } }
    var held: [String] { state.withLock { $0.queue.map(\.jti) } }
    var polls: [JSONValue] { state.withLock { $0.polls } }
    var statuses: [Int] { state.withLock { $0.statuses } }
    func setErr(_ jti: String) -> (err: String, description: String)? { state.withLock { $0.setErrs[jti] } }
    func deliveries(_ jti: String) -> Int { state.withLock { $0.deliveries[jti] ?? 0 } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let response = answer(request)
        state.withLock { $0.statuses.append(response.status.code) }
        return response
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return FakeStreamService.error(405, "invalid_request") }
        guard request.headers["Authorization"] == "Bearer " + FakeStreamService.managementToken else {
            return FakeStreamService.error(401, "authentication_failed", "the poll's bearer token is not the stream's")
        }
        guard let body = FakeStreamService.jsonBody(request), let object = body.objectValue else {
            return FakeStreamService.error(400, "invalid_request", "the poll body must be a JSON object")
        }
        let maxEvents: Int
        switch object["maxEvents"] {
        case nil: maxEvents = 100
        case .integer(let value)? where value >= 0 && value <= 10_000: maxEvents = Int(value)
        default: return FakeStreamService.error(400, "invalid_request", "maxEvents must be a non-negative integer")
        }
        if let flag = object["returnImmediately"], flag.boolValue == nil {
            return FakeStreamService.error(400, "invalid_request", "returnImmediately must be a boolean")
        }
        guard let ack = FakeStreamService.strings(object["ack"]) else {
            return FakeStreamService.error(400, "invalid_request", "ack must be an array of jti strings")
        }
        var errors: [String: (err: String, description: String)] = [:]
        if let setErrs = object["setErrs"] {
            guard let members = setErrs.objectValue else {
                return FakeStreamService.error(400, "invalid_request", "setErrs must be an object")
            }
            for member in members.members {
                guard let err = member.value["err"]?.stringValue,
                    let description = member.value["description"]?
                        .stringValue
                else {
                    return FakeStreamService.error(400, "invalid_request", "each setErrs entry needs err, description")
                }
                errors[member.key] = (err, description)
            }
        }
        for name in object.keys where !["maxEvents", "returnImmediately", "ack", "setErrs"].contains(name) {
            return FakeStreamService.error(400, "invalid_request", "unknown member \(name)")
        }
        return state.withLock { state -> HTTPResponse in
            state.polls.append(body)
            if state.refuseReports, !ack.isEmpty || !errors.isEmpty {
                return FakeStreamService.error(503, "temporarily_unavailable")
            }
            if !state.faults.isEmpty {
                switch state.faults.removeFirst() {
                case .garbage: return .json(bytes: Array("{\"sets\": {\"x\": ".utf8) + [0xFF, 0x00])
                case .status(let code): return FakeStreamService.error(code, "internal")
                case .huge(let bytes):
                    let padding = [UInt8](repeating: UInt8(ascii: "a"), count: bytes)
                    return .json(bytes: Array(#"{"sets":{"big":""#.utf8) + padding + Array(#""}}"#.utf8))
                case .wrongShape: return .json(bytes: Array(#"{"sets":["not","an","object"]}"#.utf8))
                }
            }
            state.acks += ack
            for (jti, error) in errors { state.setErrs[jti] = error }
            let done = Set(ack).union(errors.keys)
            state.queue.removeAll { done.contains($0.jti) }
            let handed = state.queue.prefix(maxEvents)
            for entry in handed { state.deliveries[entry.jti, default: 0] += 1 }
            let sets = JSONObject(
                members: handed.map { (key: $0.jti, value: .string(String(decoding: $0.set, as: UTF8.self))) })
            let answer: JSONValue = [
                "sets": .object(sets), "moreAvailable": .bool(state.queue.count > handed.count),
            ]
            return .json(bytes: answer.encoded())
        }
    }
}
