import LifecycleCore
import Testing

@Suite("Failure codes: one closed set, one spelling")
struct FailureCodeTests {
    @Test("every code is snake_case, unique, and parses back to itself")
    func roundTrip() {
        let codes = FailureCode.simpleCases + [.httpStatus(100), .httpStatus(404), .httpStatus(599)]
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        for code in codes {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(code)")
            #expect(FailureCode(rawValue: code.rawValue) == code)
            #expect("\(code)" == code.rawValue)
        }
    }

    @Test(
        "anything else is not a code: old kebab spellings, other statuses, case changes",
        arguments: [
            "sqlite-open", "http-500", "http_99", "http_600", "http_+50", "http_0500", "HTTP_500", "Timed_out", "",
            "timeout",
        ])
    func refused(_ text: String) {
        #expect(FailureCode(rawValue: text) == nil)
    }
}
