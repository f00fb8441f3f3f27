import LifecycleCore
import LifecycleEngine

/// A Shared Signals transmitter's answers to `lifecycle signals stream`: its discovery document (SSF 1.0
/// §7.1, Google's `risc-configuration`) and the error bodies of its stream management calls.
///
/// Properties: an accepted document names exactly the configured issuer, every endpoint it keeps is
/// `https://`, and the document as `stream show` prints it decodes to the same metadata; a refused one, and
/// any refused call whatever its body, is one line (no CR or LF) of bounded length, never a trap.
enum TransmitterAnswerTarget {
    static let target = FuzzTarget(
        name: "transmitter-answer",
        summary: "SSF discovery document and stream call errors: issuer pinned, https endpoints, print-decode same",
        check: check)

    static let url = "https://transmitter.example/.well-known/ssf-configuration"
    static let issuer = "https://transmitter.example/"

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let json = JSONValue.parseIfValid(bytes)
        switch Result(catching: { () throws(StreamManagementError) in
            try TransmitterMetadata.decode(json, url: url, expectedIssuer: issuer)
        }) {
        case .success(let metadata):
            try require(metadata.issuer == issuer, "a foreign issuer was accepted")
            let endpoints = [
                metadata.jwksURI, metadata.configurationEndpoint, metadata.statusEndpoint,
                metadata.verificationEndpoint,
            ]
            try require(
                endpoints.allSatisfy { $0.map { $0.hasPrefix("https://") } ?? true }, "a non-https endpoint was kept")
            let again = try? TransmitterMetadata.decode(metadata.json, url: url, expectedIssuer: issuer)
            try require(again == metadata, "the printed document does not decode to the same metadata")
        case .failure(let error):
            try oneLine(error.description)
        }
        // Any status but the expected one is a refusal, whatever the body says.
        let status = bytes.first.map { 400 + Int($0) } ?? 500
        let refusal = Result(catching: { () throws(StreamManagementError) in
            try TransmitterClient.expect((status, json), [200], call: "POST \(url)")
        })
        guard case .failure(let error) = refusal else { throw PropertyFailure("status \(status) was accepted") }
        try oneLine(error.description)
    }

    private static func oneLine(_ message: String) throws(PropertyFailure) {
        try require(!message.contains("\n") && !message.contains("\r"), "a refusal spans lines")
        try require(message.utf8.count <= 1_024, "a refusal is \(message.utf8.count) bytes long")
    }
}
