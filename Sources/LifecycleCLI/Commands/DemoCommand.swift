import Foundation
import LifecycleCore
import LifecycleDevTools
import Synchronization

/// `lifecycle demo`: the whole loop on throwaway files, from a simulated Apple notification to a verified
/// deletion-compliance report (issue 7). A thin shell over ``DemoScenario``.
struct DemoCommand: LifecycleCommand {
    static let name = "demo"
    static let summary = "run the whole loop on throwaway databases: notifications, erasure, reconcile, report"
    static let syntax = [
        CommandSyntax("demo", options: [.value("--directory", "DIR"), .value("--policies", "DIR"), .json])
    ]
    static let details = """
        Creates a sample app database (a users table with apple_sub, email, sessions) and a fresh service store,
        serves on 127.0.0.1 (an ephemeral port), and plays Apple with a throwaway key: email-disabled,
        email-enabled, consent-revoked, account-delete, the same account-delete again (duplicate), an older
        e-mail event (out of order) and an unknown type; re-links the revoked user as the app would, runs the
        erasure jobs and checks the deleted user's rows are gone, plants a discrepancy in the app database,
        reconciles, writes the signed deletion-compliance report and verifies it. Prints each step and the
        report's HTML path. Nothing outside DIR is touched; no real Apple key or account is involved.

        options:
          --directory DIR   where to write (default: a new directory under the system temp directory, kept)
          --policies DIR    the erasure policies (default: policies, as in the repository root)
          --json            print the steps and the report files as one JSON document

        exit status: 0 the loop ran and the report verifies, 2 it could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let directoryOption = try arguments.option("--directory")
        let policiesOption = try arguments.option("--policies")
        let json = arguments.flag("--json")
        try arguments.finish()

        let policies = URL(fileURLWithPath: policiesOption ?? "policies").standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: policies, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError(
                "no policies directory at \(policies); run from the repository root or give --policies DIR")
        }
        let directory: String
        if let directoryOption {
            directory = URL(fileURLWithPath: directoryOption).standardizedFileURL.path
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            guard existing.isEmpty else {
                throw UsageError("--directory \(directory) is not empty; the demo needs a fresh directory")
            }
        } else {
            directory =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("lifecycle-demo-\(UUID().uuidString.prefix(8).lowercased())").path
        }

        if !json { io.print("lifecycle demo in \(directory)") }
        let steps = StepLog()
        let scenario = DemoScenario(directory: directory, policiesDirectory: policies) { step in
            steps.append(step)
            if !json { io.print("\(String(step.number).leftPadded(to: 2)). \(step.line)") }
        }
        let outcome = try await scenario.run()
        if json {
            let document: JSONValue = [
                "directory": .string(directory),
                "steps": .array(
                    steps.all.map { step in
                        var object = step.details
                        object["step"] = .integer(Int64(step.number))
                        object["action"] = .string(step.action)
                        object["line"] = .string(step.line)
                        return .object(object)
                    }),
                "findings": .array(outcome.findingCodes.map { .string($0) }),
                "report": .string(outcome.reportHTML),
                "reportFiles": .array(outcome.reportFiles.map { .string($0) }),
                "verifiedReports": .integer(Int64(outcome.verifiedReports)),
            ]
            io.print(document.serialized(pretty: true))
        } else {
            io.print("")
            io.print("report: \(outcome.reportHTML)")
            io.print(
                "(service log: \(directory)/service.log; verify again with: lifecycle report verify --config \(directory)/lifecycle.json)"
            )
        }
        return ExitStatus.success
    }
}

/// The steps in order, for `--json`.
private final class StepLog: Sendable {
    private let steps = Mutex<[DemoScenario.Step]>([])
    func append(_ step: DemoScenario.Step) { steps.withLock { $0.append(step) } }
    var all: [DemoScenario.Step] { steps.withLock { $0 } }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
