import AppleAccountAPI
import LifecycleCore
import LifecycleEngine

/// `lifecycle apple check [--app ID]`: does Apple accept the Sign in with Apple credentials of the configuration
/// (``AppleCredentialCheck``), before any user depends on them?
struct AppleCommand: LifecycleCommand {
    static let name = "apple"
    static let summary = "check that Apple accepts each app's Sign in with Apple key, team and client IDs"
    static let syntax = [
        CommandSyntax("apple", action: "check", options: [.value("--app", "ID"), .json, .config])
    ]
    static let details = """
        For every app with a signInWithApple section (or only --app ID), and each of its client IDs: signs a
        client secret with the .p8 key (ES256, kid = keyId, iss = teamId, sub = the client ID) and sends it
        to Apple's token endpoint (apple.restBaseURL, default https://appleid.apple.com) with a made-up
        authorization code. No user and no real code is involved. Apple checks the client first:
          invalid_grant   ✓ the credentials are accepted (only the made-up code was refused)
          invalid_client  ✗ the key, team ID, key ID or client ID is wrong (or Apple is throttling)
          other answers   ✗ or ! with what to do (429 and 5xx leave the credentials unverified: retry)
        Prints one ✓/!/✗ line per check with the fix under each problem, then the verdict. The server's
        certificate is verified against the system trust store (SSL_CERT_FILE names another bundle).

        options:
          --app ID   check only this app
          --json     print {"accepted": …, "apps": [report…]} instead of the checklist

        exit status: 0 Apple accepted every client ID checked, 1 not accepted or unverified,
        2 could not run (bad configuration, unknown app, no app with signInWithApple)
        """

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let configFile = try configurationFile(&arguments, io: io)
        let appOption = try arguments.option("--app")
        let json = arguments.flag("--json")
        _ = try arguments.positionals(max: 1)
        let configuration = try ServiceConfiguration.load(file: configFile, environment: io.environment)
        let apps: [AppConfiguration]
        if let appOption {
            guard let app = configuration.apps.first(where: { $0.id == appOption }) else {
                throw UsageError(
                    "no app '\(appOption)' in \(configFile); known: "
                        + configuration.apps.map(\.id).joined(separator: ", "))
            }
            guard app.signInWithApple != nil else {
                throw UsageError(
                    "\(configFile): app \(app.id) has no signInWithApple section; add teamId, keyId, "
                        + "privateKeyFile and clients")
            }
            apps = [app]
        } else {
            apps = configuration.apps.filter { $0.signInWithApple != nil }
            guard !apps.isEmpty else {
                throw UsageError(
                    "\(configFile): no app has a signInWithApple section; add teamId, keyId, privateKeyFile and "
                        + "clients to an app")
            }
        }
        let clock = try io.clock()
        var reports: [AppleCheckReport] = []
        for app in apps {
            guard let account = app.signInWithApple else { continue }
            let client = try AppleRESTClient.forService(
                credentials: account.credentials, apple: configuration.apple, now: { clock.now() })
            reports.append(await AppleCredentialCheck(client: client).run(app: app.id))
        }
        let accepted = reports.allSatisfy(\.credentialsAccepted)
        if json {
            let document: JSONValue = [
                "accepted": .bool(accepted), "apps": .array(reports.map { $0.renderJSON() }),
            ]
            io.print(document.serialized(pretty: true))
        } else {
            io.print(reports.map { $0.renderText() }.joined(separator: "\n\n"))
        }
        return accepted ? ExitStatus.success : ExitStatus.negative
    }
}
