import AppleNotifications
import AppleRESTFake
import Foundation
import LifecycleCore
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine

/// The rules every `lifecycle` command keeps (README "Commands"), on the real executable: an option the
/// command does not use is refused with one line naming it and the command's usage; `--` ends the options;
/// every `--json` offered prints JSON; `lifecycle help COMMAND` is `lifecycle COMMAND --help`; a command that
/// cannot run prints one line on standard error, the structured log only when asked (`--log-level`,
/// `LIFECYCLE_LOG_LEVEL`).
@Suite("lifecycle command-line rules, on the real executable")
struct CommandLineRulesTests {
    /// Command lines that give an option the command (or its action) does not use, and that option.
    static let refused: [(arguments: [String], option: String)] = [
        (["jobs", "run", "--status", "failed", "--outcome", "failed"], "--status"),
        (["jobs", "run", "--once", "--outcome", "failed"], "--outcome"),
        (["jobs", "list", "--outcome", "erased"], "--outcome"),
        (["jobs", "retry", "1", "--once"], "--once"),
        (["jobs", "complete", "1", "app-db", "--status", "failed"], "--status"),
        (["report", "verify", "--app", "shop"], "--app"),
        (["report", "generate", "--public-key", "key.pem"], "--public-key"),
        (["report", "lookup", "--app", "shop", "--sub", "s", "--from", "2026-01-01"], "--from"),
        (["bench", "reconcile", "--config", "lifecycle.json"], "--config"),
        (["bench", "ingest", "--accounts", "5"], "--accounts"),
        (["policy", "validate", "--at", "2026-01-01T00:00:00Z"], "--at"),
        (["outbox", "retry", "1", "--status", "dead"], "--status"),
        (["account", "show", "--app", "shop", "--sub", "s", "--event-time", "2026-01-01T00:00:00Z"], "--event-time"),
        (["serve", "--json"], "--json"),
        (["migrate", "--json"], "--json"),
        (["endpoint", "check", "https://example.com/apple", "--config", "lifecycle.json"], "--config"),
        (["demo", "--config", "lifecycle.json"], "--config"),
        (["dev-setup", "--config", "lifecycle.json"], "--config"),
        (["simulate", "--type", "consent-revoked", "--sub", "s", "--json"], "--json"),
        (["inspect", "--json"], "--json"),
        (["ingest", "--file", "-", "--once"], "--once"),
        (["reconcile", "--status", "failed"], "--status"),
    ]

    @Test("an option the command does not use is refused: exit 2, one line naming it and the command's usage")
    func refusesUnusedOptions() async throws {
        let directory = try TemporaryDirectory()
        for (arguments, option) in Self.refused {
            let result = try await LifecycleProcess.run(arguments, directory: directory.path)
            let command = arguments.prefix { !$0.hasPrefix("-") && !$0.contains(".") && Int($0) == nil }
                .prefix(2).joined(separator: " ")
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result.errors)")
            let line = String(result.errorLines.first ?? "")
            #expect(line.contains(option), "\(arguments) names \(option): \(line)")
            #expect(line.contains("usage: lifecycle \(command)"), "\(arguments) shows its usage: \(line)")
            #expect(result.output.isEmpty, "\(arguments) did nothing: \(result.output)")
        }
    }

    @Test("every command and action, given an option it does not declare, refuses it with its own usage")
    func everySyntaxRefuses() async throws {
        let directory = try TemporaryDirectory()
        for command in CommandLineInterface.commands {
            for syntax in command.syntax {
                // An option a sibling action takes, else one nobody takes.
                let sibling = command.syntax.flatMap(\.options).first { syntax.option(named: $0.name) == nil }
                let option = sibling?.name ?? "--no-such-option"
                let value = sibling?.takesValue == false ? [] : ["x"]
                let words = [command.name] + (syntax.action.map { [$0] } ?? [])
                let result = try await LifecycleProcess.run(words + [option] + value, directory: directory.path)
                let expected =
                    "lifecycle \(command.name): \(option) is not an option of 'lifecycle \(syntax.name)'; usage: "
                    + syntax.usage + "\n"
                #expect(result.status == 2, "\(syntax.name) \(option): \(result)")
                #expect(result.errors == expected, "\(syntax.name)")
            }
        }
    }

    @Test("-- ends the options: a file named like an option after it is a file")
    func doubleDashEndsOptions() async throws {
        let fixture = try await ServeFixture()
        // An expired token in a file called --allow-expired: after --, it is the input, not the flag.
        let issued = SystemClock().now().adding(seconds: -3 * 86_400)
        let claims = TestTokenFactory.claims(
            event: TestTokenFactory.event(eventTime: .integer(issued.millisecondsSinceEpoch)),
            audience: ServeFixture.clientID, issuedAt: issued)
        try fixture.tokens.token(claims: claims).write(
            toFile: fixture.directory.file("--allow-expired"), atomically: true, encoding: .utf8)
        let result = try await fixture.lifecycle([
            "inspect", "--jwks", "jwks.json", "--audience", ServeFixture.clientID, "--", "--allow-expired",
        ])
        #expect(result.status == 1, "\(result)")
        let report = JSONValue.parseIfValid(Array(result.output.utf8))
        #expect(report?["valid"] == false)
        #expect(report?["error"]?["code"] == "expired")
    }

    @Test("lifecycle help COMMAND prints what lifecycle COMMAND --help prints")
    func helpCommand() async throws {
        for command in ["jobs", "serve", "report"] {
            let help = try await LifecycleProcess.run(["help", command])
            let flag = try await LifecycleProcess.run([command, "--help"])
            #expect(help.status == 0 && flag.status == 0)
            #expect(help.output == flag.output, "lifecycle help \(command)")
            #expect(help.output.contains("usage: lifecycle \(command)"))
        }
        let unknown = try await LifecycleProcess.run(["help", "frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.errorLines.count == 1)
    }

    @Test("every --json offered prints one JSON document")
    func everyJSONIsJSON() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(records: ["type": "jsonl", "path": "records.jsonl"])])
        try "".write(toFile: fixture.directory.file("records.jsonl"), atomically: true, encoding: .utf8)
        // Credentials for `apple check`, with Apple's REST API where nothing listens (a refused connect).
        let keyFile = try FakeAppleTeam(clientIDs: []).writeKeyFile(to: fixture.directory.path)
        try fixture.updateConfiguration { root in
            root["apple"] = ["jwks": "jwks.json", "restBaseURL": "https://127.0.0.1:1", "restTimeoutSeconds": 2]
            root["apps"] = [
                ServeFixture.app(records: ["type": "jsonl", "path": "records.jsonl"]).adding(
                    "signInWithApple",
                    [
                        "teamId": "TEAMA1B2C3", "keyId": "KEYA1B2C3D", "privateKeyFile": .string(keyFile),
                        "clients": [["id": .string(ServeFixture.clientID), "kind": "native"]],
                    ]
                ).adding(
                    "signals",
                    [
                        // A transmitter where nothing listens: `signals stream show` fails, in JSON.
                        [
                            "provider": "ssf", "id": "idp", "issuer": "https://127.0.0.1:1/", "jwks": "jwks.json",
                            "audience": ["https://receiver.example.com/"], "stream": ["timeoutSeconds": 2],
                        ]
                    ])
            ]
        }
        let config = ["--config", fixture.configurationFile]
        let subject = ServeProcessTests.subject
        let demo = try TemporaryDirectory()
        try FileManager.default.removeItem(atPath: demo.path)
        let cases: [(arguments: [String], status: Int32)] = [
            (["account", "link", "--app", "shop", "--sub", subject, "--json"] + config, 0),
            (["account", "show", "--app", "shop", "--sub", subject, "--json"] + config, 0),
            (["account", "delete", "--app", "shop", "--sub", subject, "--json"] + config, 0),
            (["account", "export", "--app", "shop", "--sub", subject, "--json"] + config, 0),
            (["keys", "status", "--json"] + config, 0),
            (["outbox", "list", "--json"] + config, 0),
            (["outbox", "retry", "7", "--json"] + config, 1),
            (["jobs", "list", "--json"] + config, 0),
            (["jobs", "list", "--app", "shop", "--sub", subject, "--json"] + config, 0),
            (["reconcile", "--json"] + config, 0),
            (["ingest", "--file", "-", "--json"] + config, 0),
            (["report", "generate", "--json"] + config, 0),
            (["report", "verify", "--json"] + config, 0),
            (["report", "lookup", "--app", "shop", "--sub", subject, "--json"] + config, 0),
            (["report", "requests", "--app", "shop", "--json"] + config, 0),
            // The app erases nothing, so the deleted account has no request with an erasure job to decide on.
            (["request", "hold", "--app", "shop", "--sub", subject, "--grounds", "g", "--json"] + config, 1),
            (["request", "release", "--app", "shop", "--sub", subject, "--reason", "r", "--json"] + config, 1),
            (["request", "refuse", "--app", "shop", "--sub", subject, "--basis", "b", "--json"] + config, 1),
            (
                [
                    "request", "extend", "--app", "shop", "--sub", subject, "--reason", "r", "--notice-at",
                    "2026-01-01T00:00:00Z", "--deadline", "2026-02-01T00:00:00Z", "--json",
                ] + config, 1
            ),
            (["signals", "stream", "show", "--app", "shop", "--provider", "idp", "--json"] + config, 2),
            (["endpoint", "check", "http://127.0.0.1:1/apple", "--timeout", "1", "--json"], 1),
            (["apple", "check", "--json"] + config, 1),
            (["bench", "reconcile", "--accounts", "200", "--json"], 0),
            (["bench", "ingest", "--duration", "1", "--bodies", "300", "--connections", "2", "--json"], 0),
            (["bench", "report", "--events", "40", "--policies", ErasureScenario.shippedPolicies, "--json"], 0),
            (["demo", "--directory", demo.path, "--policies", ErasureScenario.shippedPolicies, "--json"], 0),
        ]
        // Every syntax that offers --json is among the cases.
        var offered: Set<String> = []
        for command in CommandLineInterface.commands {
            for syntax in command.syntax where syntax.option(named: "--json") != nil { offered.insert(syntax.name) }
        }
        var covered: Set<String> = []
        for (arguments, _) in cases {
            let pair = arguments.count > 1 ? arguments[0] + " " + arguments[1] : arguments[0]
            covered.insert(offered.contains(pair) ? pair : arguments[0])
        }
        let untested = offered.subtracting(covered).sorted()
        #expect(untested.isEmpty, "untested --json: \(untested)")
        for (arguments, status) in cases {
            let result = try await fixture.lifecycle(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(
                (try? JSONValue.parse(Array(result.output.utf8))) != nil,
                "\(arguments) printed one JSON document: \(result.output.prefix(400))")
        }
    }

    @Test("policy validate prints a broken policy's problem once, naming the apps that use it; explain in one line")
    func brokenPolicyOnce() async throws {
        let fixture = try await ServeFixture(
            apps: [
                ServeFixture.app(erasureTargets: ServeFixture.sqliteTarget("app.sqlite")),
                ServeFixture.app(
                    id: "blog", clientID: "com.example.blog", erasureTargets: ServeFixture.sqliteTarget("blog.sqlite")),
            ])
        try fixture.writePolicy(ServeFixture.immediatePolicy(within: "-P5D"))
        let result = try await fixture.lifecycle(["policy", "validate", "--config", fixture.configurationFile])
        #expect(result.status == 1, "\(result)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "the root problem once: \(lines)")
        #expect(lines.first?.contains("immediate.json") == true)
        #expect(lines.first?.contains("rules[0].within") == true)
        #expect(lines.first?.contains("shop") == true && lines.first?.contains("blog") == true, "names the apps")

        let explained = try await fixture.lifecycle([
            "policy", "explain", "immediate", "--config", fixture.configurationFile,
        ])
        #expect(explained.status == 2)
        #expect(explained.errorLines.count == 1, "one line: \(explained.errors)")
        #expect(explained.errors.contains("rules[0].within"))
    }

    @Test(
        "a command that cannot run prints one line on stderr; the structured log only with --log-level or LIFECYCLE_LOG_LEVEL"
    )
    func oneLineUnlessAsked() async throws {
        let fixture = try await ServeFixture(
            apps: [ServeFixture.app(records: ["type": "jsonl", "path": "missing.jsonl"])])
        let config = ["--config", fixture.configurationFile]
        let quiet = try await fixture.lifecycle(["reconcile"] + config)
        #expect(quiet.status == 2, "\(quiet)")
        #expect(quiet.errorLines.count == 1, "one line: \(quiet.errors)")
        #expect(quiet.errors.hasPrefix("lifecycle reconcile: "), "\(quiet.errors)")
        #expect(quiet.errors.contains("missing.jsonl"))

        let asked = try await fixture.lifecycle(["reconcile", "--log-level", "info"] + config)
        #expect(asked.status == 2)
        let logLines = asked.errorLines.filter { JSONValue.parseIfValid(Array($0.utf8))?["event"] != nil }
        #expect(logLines.contains { $0.contains("\"reconcile.started\"") }, "\(asked.errors)")
        #expect(asked.errorLines.last?.hasPrefix("lifecycle reconcile: ") == true)

        let environment = try await fixture.lifecycle(
            ["reconcile"] + config, environment: ["LIFECYCLE_LOG_LEVEL": "info"])
        #expect(environment.errorLines.contains { $0.contains("\"reconcile.started\"") }, "\(environment.errors)")
    }
}
