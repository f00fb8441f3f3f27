import Foundation

/// `lifecycle endpoint check URL`: is this URL ready to register as the server-to-server notification
/// endpoint (mandatory for Korea-based developers since 2026-01-01, DOMAIN.md §5)?
struct EndpointCommand: LifecycleCommand {
    static let name = "endpoint"
    static let summary = "check that a notification endpoint URL is ready to register with Apple (TLS, ATS, probe)"
    static let syntax = [
        CommandSyntax(
            "endpoint", action: "check", positionals: "URL", count: 1...1,
            options: [.value("--ca-file", "FILE"), .value("--timeout", "SECONDS"), .value("--slow-after", "MS"), .json])
    ]
    static let details = """
        Checks URL the way Apple's servers will use it and prints a checklist (✓ pass, ! warning, ✗ fail, with
        the fix under each problem), then a "Korea registration readiness" verdict:
          URL shape     absolute https URL with a host and a path (Apple's rule)
          DNS, TCP      the host resolves; connect time to its port
          TLS           protocol and cipher negotiated; TLS 1.0/1.1 offers refused
          certificate   chain trusted (system store or --ca-file), host name covered, days until expiry
                        (warning under 30, failure when expired), RSA >= 2048 or EC >= 256, SHA-2 signature
          ATS           App Transport Security verdict: TLS 1.2+, forward-secret AEAD suite, SHA-2, key size
          probe         POST {"payload":"probe"} (unsigned) to the path; a correct endpoint answers 4xx within
                        a second (slower is a warning; 5xx, a redirect or no answer is a failure)
        Only URL's host and port are contacted.

        options:
          --ca-file FILE      trust this PEM CA bundle instead of the system store (private or test CAs)
          --timeout SECONDS   bound on each network step, 1...120 (default 10)
          --slow-after MS     a probe answered later than this is a warning (default 1000)
          --json              print the report as JSON instead of the checklist

        exit status: 0 ready (warnings allowed), 1 not ready, 2 could not run (bad usage)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let caFile = try arguments.option("--ca-file")
        let timeout = try arguments.integerOption("--timeout", range: 1...120) ?? 10
        let slowAfter = try arguments.integerOption("--slow-after", range: 1...120_000) ?? 1000
        let json = arguments.flag("--json")
        let words = try arguments.positionals(max: 2)
        guard let action = words.first else { throw UsageError("missing action: lifecycle endpoint check URL") }
        guard action == "check" else { throw UsageError("unknown action '\(action)'; the only action is 'check'") }
        guard words.count == 2 else { throw UsageError("missing URL: lifecycle endpoint check URL") }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw UsageError("--ca-file \(caFile) is not a readable file")
        }
        var options = EndpointCheckOptions(url: words[1], trustedCAFile: caFile, timeout: .seconds(timeout))
        options.slowResponseThreshold = .milliseconds(slowAfter)
        let report = await EndpointChecker(options: options).run()
        io.print(json ? report.renderJSON().serialized(pretty: true) : report.renderText())
        return report.isReady ? ExitStatus.success : ExitStatus.negative
    }
}
