import AppleAccountAPI
import Foundation
import Glibc
import LifecycleCore

/// The parts of `lifecycle.json` for Apple's REST API (Apple, "Generate and validate tokens", "Creating a
/// client secret"): per app `signInWithApple` (team, key, `.p8` file and client IDs with their kind), and in the
/// top-level `apple` section the REST base URL and timeout.
extension ServiceConfiguration {
    /// Apple's REST API; tests point `apple.restBaseURL` at a stand-in on loopback.
    public static let defaultAppleRESTBaseURL = "https://appleid.apple.com"

    /// `apps[i].signInWithApple`, nil when absent (the app then holds no Apple tokens and `apple check` has
    /// nothing to check). Every client ID listed must also be one of the app's `clientIds`, the `aud` values its
    /// `id_token`s and notifications carry.
    static func parseAppleAccount(
        _ app: inout ConfigurationReader, clientIDs: [String], resolve: (String) -> String
    ) throws(ConfigurationError) -> AppleAccountConfiguration? {
        guard var reader = try app.object("signInWithApple") else { return nil }
        try reader.allow(["teamId", "keyId", "privateKeyFile", "clients"])
        guard let teamID = try reader.string("teamId", fix: "the 10-character Team ID from Membership details")
        else {
            throw reader.error("teamId", "missing", fix: "the 10-character Team ID from Membership details")
        }
        guard let keyID = try reader.string("keyId", fix: "the 10-character Key ID of the Sign in with Apple key")
        else {
            throw reader.error(
                "keyId", "missing", fix: "the 10-character Key ID from Certificates, IDs & Profiles → Keys")
        }
        guard let keyPath = try reader.string("privateKeyFile", fix: "the path of AuthKey_<key ID>.p8") else {
            throw reader.error(
                "privateKeyFile", "missing", fix: "the path of the AuthKey_\(keyID).p8 file downloaded from Apple")
        }
        let keyFile = resolve(keyPath)
        let pem = try readPrivateKeyFile(keyFile, reader: reader)
        guard let clientReaders = try reader.objects("clients"), !clientReaders.isEmpty else {
            throw reader.error(
                "clients", "missing or empty",
                fix: "list {\"id\": \"<bundle ID>\", \"kind\": \"native\"} and/or {\"id\": \"<Services ID>\", "
                    + "\"kind\": \"web\"}")
        }
        var clients: [AppleClient] = []
        for var clientReader in clientReaders {
            try clientReader.allow(["id", "kind"])
            guard let id = try clientReader.string("id", fix: "the bundle ID (native) or Services ID (web)") else {
                throw clientReader.error("id", "missing", fix: "the bundle ID (native) or Services ID (web)")
            }
            guard clientIDs.contains(id) else {
                throw clientReader.error(
                    "id", "\(id) is not one of the app's clientIds", fix: "add it to clientIds or correct it")
            }
            let kindName = try clientReader.string("kind", fix: "native or web")
            guard let kindName, let kind = AppleClient.Kind(rawValue: kindName) else {
                throw clientReader.error(
                    "kind", kindName.map { "unknown kind \($0)" } ?? "missing",
                    fix: "native (bundle ID, sign-in on a device) or web (Services ID, with a redirect URI)")
            }
            try clientReader.finish()
            clients.append(AppleClient(id: id, kind: kind))
        }
        try reader.finish()
        do throws(AppleCredentialsError) {
            let credentials = try AppleCredentials(
                teamID: teamID, keyID: keyID, privateKeyPEM: pem, clients: clients)
            return AppleAccountConfiguration(credentials: credentials, privateKeyFile: keyFile)
        } catch {
            let field: String
            switch error.field {
            case "teamID": field = "teamId"
            case "keyID": field = "keyId"
            case "privateKey": field = "privateKeyFile"
            default: field = error.field
            }
            let location = field == "privateKeyFile" ? "\(keyFile): " : ""
            throw reader.error(field, location + error.description, fix: "")
        }
    }

    /// The `.p8` key's bytes. The file must be readable by its owner only (mode 0600, as Apple's download and
    /// every other secret file of the service): a key others can read signs client secrets for the whole team.
    static func readPrivateKeyFile(
        _ path: String, reader: ConfigurationReader
    ) throws(ConfigurationError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw reader.error(
                "privateKeyFile", "\(path) cannot be read (\(String(cString: strerror(errno))))",
                fix: "put the AuthKey_<key ID>.p8 file downloaded from Apple there (mode 0600)")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw reader.error(
                "privateKeyFile",
                "\(path) is readable by others (mode \(String(mode, radix: 8).leftPadded(to: 4)))",
                fix: "run chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw reader.error(
                "privateKeyFile", "\(path) cannot be read", fix: "make it readable by the service's user (mode 0600)")
        }
        return Array(data)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
