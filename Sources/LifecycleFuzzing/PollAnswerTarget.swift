import LifecycleCore
import LifecycleEngine

/// A transmitter's answer to a poll (RFC 8936 §2.2), which `serve`'s poll worker reads from outside.
///
/// Properties: an accepted answer keeps every SET under a `jti` of 1-256 bytes and no SET empty, re-encodes (in
/// document order) to an answer that decodes the same, and the poll acknowledging it lists exactly its `jti`s
/// (in order) in a body that is valid JSON; a refused answer is one line (no CR or LF) of bounded length,
/// never a trap.
enum PollAnswerTarget {
    static let target = FuzzTarget(
        name: "poll-answer",
        summary: "RFC 8936 poll answer: bounded jti, non-empty SETs, encode-decode same, ack echoes the jtis",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        switch SecurityEventPollAnswer.decode(bytes) {
        case .success(let answer):
            for (jti, set) in answer.sets {
                let count = jti.utf8.count
                try require(
                    count >= 1 && count <= SecurityEventPollAnswer.maximumJTIBytes, "a jti of \(count) bytes was kept")
                try require(!set.isEmpty, "an empty SET was kept")
            }
            let again = SecurityEventPollAnswer.decode(Array(answer.json.serialized(sortedKeys: false).utf8))
            guard case .success(let decoded) = again else {
                throw PropertyFailure("the re-encoded answer is refused: \(again)")
            }
            try require(decoded == answer, "the re-encoded answer decodes differently")
            let request = SecurityEventPollRequest(maxEvents: 100, ack: answer.sets.map(\.jti))
            guard let body = JSONValue.parseIfValid(request.json.encoded()) else {
                throw PropertyFailure("the acknowledging poll is not JSON")
            }
            let acked = body["ack"]?.arrayValue?.compactMap(\.stringValue) ?? []
            try require(acked == answer.sets.map(\.jti), "the ack does not list the answer's jtis in order")
        case .failure(let error):
            try require(
                !error.description.contains("\n") && !error.description.contains("\r"), "a refusal spans lines")
            try require(error.description.utf8.count <= 1_024, "a refusal is \(error.description.utf8.count) bytes")
        }
    }
}
