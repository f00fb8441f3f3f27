import LifecycleCore
import LifecycleEngine

/// The optional body of `POST /v1/jobs/{id}/steps/{target}/complete`:
/// `{"outcome": "erased"|"unverifiable"|"failed", "rowsAffected": n, "verificationCount": n}`.
///
/// The counts are integers in JSON Schema's sense (§6.3 of the 2020-12 validation vocabulary: a number
/// with a zero fractional part), so `158`, `158.0` and `1.58e2` are all 158, and `158.5` is refused.
/// Their range is `0...Int64.max`, as `admin.openapi.json` declares. Unknown members are refused.
package enum StepCompletionBody {
    package static func parse(
        _ body: [UInt8]
    ) throws(AdminError) -> (ErasureJobRunner.CallbackOutcome, ErasureStepEvidence) {
        var outcome = ErasureJobRunner.CallbackOutcome.erased
        var evidence = ErasureStepEvidence.none
        guard !body.isEmpty else { return (outcome, evidence) }
        guard let object = JSONValue.parseIfValid(body)?.objectValue else {
            throw AdminError(status: 422, code: .invalidBody, "the body must be a JSON object")
        }
        for (key, value) in object {
            switch key {
            case "outcome":
                guard let text = value.stringValue, let parsed = ErasureJobRunner.CallbackOutcome(rawValue: text)
                else {
                    throw AdminError(
                        status: 422, code: .invalidOutcome, "outcome must be erased, unverifiable or failed")
                }
                outcome = parsed
            case "rowsAffected":
                evidence.rowsAffected = try count(value, named: key)
            case "verificationCount":
                evidence.verificationCount = try count(value, named: key)
            default:
                throw AdminError.unknownMember(key, accepted: ["outcome", "rowsAffected", "verificationCount"])
            }
        }
        return (outcome, evidence)
    }

    private static func count(_ value: JSONValue, named name: String) throws(AdminError) -> Int {
        guard let whole = value.wholeNumberValue, whole >= 0 else {
            throw AdminError(
                status: 422, code: .invalidCount,
                "\(name) must be a whole number from 0 to 9223372036854775807, found \(value.kindName)")
        }
        return Int(clamping: whole)
    }
}
