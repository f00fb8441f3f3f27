import AppleNotifications
import Foundation
import LifecycleCore
import LifecycleDevTools
import LifecycleEngine

/// `lifecycle dev-setup`: everything a newcomer needs to see the service work locally, and nothing that
/// could be mistaken for production: a throwaway signing key that stands in for Apple's, and a config that
/// trusts only that key.
struct DevSetupCommand: LifecycleCommand {
    static let name = "dev-setup"
    static let summary = "create a local development config and a stand-in Apple signing key under var/dev"
    static let syntax = [CommandSyntax("dev-setup", options: [.value("--directory", "DIR"), .value("--port", "N")])]
    static let details = """
        Creates, when missing (existing files are kept):
          DIR/apple-dev-key.pem     an RSA-2048 key that plays Apple's part (mode 0600)
          DIR/apple-dev-jwks.json   its public half as a JWKS
          DIR/lifecycle.json        a config that trusts ONLY that JWKS, stores in DIR/lifecycle.sqlite and
                                    serves on 127.0.0.1:PORT, with one app "demo" (aud com.example.app)
          DIR/secrets/admin-token   the admin listener's bearer token (mode 0600)
          DIR/secrets/master.key    the master key that wraps the subjects' data keys (mode 0600)
        DIR defaults to var/dev. `make run` calls this, then serves with DIR/lifecycle.json. Never deploy
        this config: production configs take Apple's JWKS (see lifecycle.example.json).

        options:
          --directory DIR   where to write (default var/dev)
          --port N          public port of the generated config (default 8080)
        """

    static let devClientID = "com.example.app"

    static func run(_ arguments: inout CommandArguments, io: CommandIO) async throws -> Int32 {
        let directory = try arguments.option("--directory") ?? "var/dev"
        let port = try arguments.integerOption("--port", range: 1...65535) ?? 8080
        try arguments.finish()
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = directory + "/" + DevKeyPair.privateKeyFileName
        if FileManager.default.fileExists(atPath: keyPath) {
            _ = try DevKeyPair.load(from: directory)
            io.print("kept \(keyPath)")
        } else {
            let pair = try DevKeyPair.generate()
            let paths = try pair.write(to: directory)
            io.print("created \(paths.privateKeyPath) and \(paths.jwksPath) (kid \(pair.keyID))")
        }
        let configPath = directory + "/lifecycle.json"
        if FileManager.default.fileExists(atPath: configPath) {
            io.print("kept \(configPath)")
        } else {
            let config: JSONValue = [
                "storage": ["url": "sqlite:lifecycle.sqlite"],
                "public": ["host": "127.0.0.1", "port": .integer(Int64(port))],
                "admin": ["host": "127.0.0.1", "port": .integer(Int64(port + 1)), "tokenFile": "secrets/admin-token"],
                "apple": ["jwks": .string(DevKeyPair.jwksFileName)],
                "apps": [["id": "demo", "clientIds": .array([.string(devClientID)])]],
                "pseudonymKeyFile": "secrets/pseudonym.key",
                "secrets": ["masterKeyFile": "secrets/master.key"],
            ]
            try Data((config.serialized(pretty: true) + "\n").utf8).write(to: URL(fileURLWithPath: configPath))
            io.print("created \(configPath)")
        }
        let tokenPath = directory + "/secrets/admin-token"
        _ = try SecretFile.readOrCreate(path: tokenPath)
        let keyring = try MasterKeyring.load(file: directory + "/secrets/master.key", environment: [:])
        io.print("master key \(keyring.ids.joined(separator: ", ")) in \(directory)/secrets/master.key")
        return ExitStatus.success
    }
}
