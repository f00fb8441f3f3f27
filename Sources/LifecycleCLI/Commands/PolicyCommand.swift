import Foundation
import LifecycleCore
import LifecycleEngine

/// `lifecycle policy validate|explain`: check the policy files and every app's mapping, or print one policy
/// in plain words (DESIGN.md §7).
struct PolicyCommand: LifecycleCommand {
    static let name = "policy"
    static let summary = "validate erasure policies and app mappings, or explain one policy in plain words"
    static let syntax = [
        CommandSyntax("policy", action: "validate", positionals: "[DIR]", count: 0...1, options: [.config]),
        CommandSyntax(
            "policy", action: "explain", positionals: "ID", count: 1...1,
            options: [.value("--dir", "DIR"), .value("--at", "TIME"), .config]),
    ]
    static let details = """
        validate  checks every *.json file in DIR (default: policiesDirectory from the configuration, else
                  policies/) and, when a configuration is found, every app's policy, targets and categories:
                  each category the policy erases or retains must be mapped to defined targets ("self" is
                  built in). Prints one line per problem naming the file, the field and the fix; a broken
                  policy file's problem once, naming the apps that use it. An app whose policy has no rule
                  for account-deleted or in-app-deletion gets a "warning:" line (such a request erases no
                  category; only retain[] purges run); warnings leave the exit status as it is.
        explain   prints what policy ID erases on each trigger, by when, and what it keeps under which law.
                  --at TIME adds the absolute dates for an event at TIME (RFC 3339 or Unix time).

        exit status: 0 valid, 1 problems found, 2 could not run
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let explicitConfig = try arguments.option("--config") ?? io.environment["LIFECYCLE_CONFIG"]
        let configFile = explicitConfig ?? ServiceConfiguration.defaultFile
        let directoryOption = try arguments.option("--dir")
        let atText = try arguments.option("--at")
        let words = try arguments.positionals(max: 2)
        guard let action = words.first else { throw UsageError("say validate or explain") }
        let document = try readConfiguration(configFile, required: explicitConfig != nil)
        let base = URL(fileURLWithPath: configFile).deletingLastPathComponent().path
        func configuredDirectory() -> String {
            let named = document?["policiesDirectory"]?.stringValue ?? "policies"
            guard document != nil else { return named }
            return named.hasPrefix("/") || base == "." || base.isEmpty ? named : base + "/" + named
        }
        switch action {
        case "validate":
            let directory = words.count > 1 ? words[1] : directoryOption ?? configuredDirectory()
            let library = PolicyLibrary.load(directory: directory)
            var users: [String: [String]] = [:]
            let mapping = document.map { mappingProblems($0, file: configFile, library: library, users: &users) } ?? []
            // A broken policy's own problem, once, naming the apps that use it (rather than one more line per app).
            var named: Set<String> = []
            var problems: [String] = []
            for line in library.problems {
                let file = users.keys.first { line.hasPrefix($0 + ": ") }
                if let file, named.insert(file).inserted {
                    problems.append(line + " (used by \(users[file, default: []].joined(separator: ", ")))")
                } else {
                    problems.append(line)
                }
            }
            problems += mapping
            for line in problems { io.print(line) }
            // Not a broken file, but a gap an auditor would ask about: printed, without failing the check.
            for line in document.map({ deletionWarnings($0, file: configFile, library: library) }) ?? [] {
                io.print(line)
            }
            if problems.isEmpty {
                let ids = library.policies.keys.sorted().joined(separator: ", ")
                io.print("\(directory): \(library.policies.count) policies valid (\(ids))")
                return ExitStatus.success
            }
            return ExitStatus.negative
        case "explain":
            guard words.count == 2 else { throw UsageError("explain needs a policy ID") }
            let directory = directoryOption ?? configuredDirectory()
            let library = PolicyLibrary.load(directory: directory)
            guard let policy = library.policies[words[1]] else {
                // One line: the policy's own problem when its file is broken, else what is known.
                if let file = library.brokenFiles[words[1]],
                    let problem = library.problems.first(where: { $0.hasPrefix(file + ": ") })
                {
                    throw UsageError("policy \"\(words[1])\" does not load: \(problem)")
                }
                throw UsageError(
                    "no valid policy \"\(words[1])\" in \(directory); known: "
                        + library.policies.keys.sorted().joined(separator: ", "))
            }
            var at: Instant?
            if let atText {
                guard let parsed = ISO8601Format.parse(atText) else {
                    throw UsageError("--at \(atText) is not \(ISO8601Format.expectedForm)")
                }
                at = parsed
            }
            io.print(PolicyExplanation(policy: policy, exampleEventTime: at).text)
            io.print("")
            io.print("Jobs scheduled now record the policy as \(PolicyLibrary.frozenReference(policy)).")
            return ExitStatus.success
        default:
            throw UsageError("unknown action '\(action)'; use validate or explain")
        }
    }

    /// The configuration as raw JSON: validation reports every mapping problem, where loading would stop at
    /// the first. Nil when no file is found and none was asked for.
    static func readConfiguration(_ file: String, required: Bool) throws -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: file) else {
            if required { throw UsageError("\(file): not found") }
            return nil
        }
        do {
            return try JSONValue.parse(data)
        } catch {
            throw UsageError("\(file): not valid JSON (\(error))")
        }
    }

    /// One warning per app whose policy names no rule for a kind of deletion (``ErasurePolicy/uncoveredDeletions``):
    /// such a request is acknowledged and no rule's categories are erased (only the policy's `retain[]` purges).
    static func deletionWarnings(_ document: JSONValue, file: String, library: PolicyLibrary) -> [String] {
        var lines: [String] = []
        for (index, app) in (document["apps"]?.arrayValue ?? []).enumerated() {
            guard let object = app.objectValue,
                ServiceConfiguration.appErasureKeys.contains(where: { object[$0] != nil }),
                let policy = library.policies[object["policy"]?.stringValue ?? "default"],
                !policy.uncoveredDeletions.isEmpty
            else { continue }
            let triggers = policy.uncoveredDeletions.map(\.rawValue).joined(separator: ", ")
            lines.append(
                "warning: "
                    + ConfigurationError(
                        file: file, field: "apps[\(index)].policy",
                        problem: "policy \"\(policy.id)\" has no rule for \(triggers): such a request is "
                            + "acknowledged and no category is erased"
                            + (policy.retain.isEmpty ? "" : " (only the retain[] purges are scheduled)"),
                        fix: "add \(triggers) to a rule's \"on\" (the shipped default erases both deletions alike)"
                    ).description)
        }
        return lines
    }

    /// One line per problem in the apps' erasure mappings, in the configuration's own error format. An app
    /// whose policy is a broken file gets no line of its own: it is added to `users` (file → apps), and the
    /// file's problem names it.
    static func mappingProblems(
        _ document: JSONValue, file: String, library: PolicyLibrary, users: inout [String: [String]]
    ) -> [String] {
        var lines: [String] = []
        for (index, app) in (document["apps"]?.arrayValue ?? []).enumerated() {
            guard let object = app.objectValue,
                ServiceConfiguration.appErasureKeys.contains(where: { object[$0] != nil })
            else { continue }
            let field = "apps[\(index)]"
            let policyID = object["policy"]?.stringValue ?? "default"
            if library.policies[policyID] == nil, let broken = library.brokenFiles[policyID] {
                users[broken, default: []].append("\(field) \(object["id"]?.stringValue ?? "?")")
                continue
            }
            guard let policy = library.policies[policyID] else {
                lines.append(
                    ConfigurationError(
                        file: file, field: field + ".policy", problem: "no valid policy with id \"\(policyID)\"",
                        fix: "use one of: \(library.policies.keys.sorted().joined(separator: ", "))"
                    ).description)
                continue
            }
            var categories: [String: [String]] = [:]
            for member in object["categories"]?.objectValue ?? [:] {
                categories[member.key] = member.value.arrayValue?.compactMap(\.stringValue) ?? []
            }
            let targets = Set(object["targets"]?.objectValue?.keys ?? [])
            for line in ErasurePlanner.missingMappings(policy: policy, categories: categories, knownTargets: targets) {
                let parts = line.components(separatedBy: "; fix: ")
                lines.append(
                    ConfigurationError(
                        file: file, field: field + ".categories", problem: parts[0],
                        fix: parts.count > 1 ? parts[1] : ""
                    ).description)
            }
        }
        return lines
    }
}
