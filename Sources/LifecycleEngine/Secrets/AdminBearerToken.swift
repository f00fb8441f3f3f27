import Foundation
import LifecycleCrypto

/// The admin listener's shared secret (DESIGN.md §4): read from `admin.tokenFile` or `LIFECYCLE_ADMIN_TOKEN`,
/// checked on every request with a constant-time comparison so response timing does not reveal how much of
/// a guess was right. Bearer syntax per RFC 6750 §2.1; the scheme name is case-insensitive (RFC 9110 §11.1).
public struct AdminBearerToken: Sendable {
    /// The environment variable that holds the token (it takes precedence over the file).
    public static let environmentVariable = "LIFECYCLE_ADMIN_TOKEN"

    private let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// Loads the token the configuration names, or fails with one line saying what to do: the admin
    /// listener never starts without a token.
    public static func load(
        _ admin: AdminListenerConfiguration, environment: [String: String]
    ) throws -> AdminBearerToken {
        let secret = try SecretFile.read(path: admin.tokenFile, variable: environmentVariable, environment: environment)
        guard let secret, !secret.isEmpty else {
            throw SecretFile.Failure(
                description:
                    "admin listener enabled without a token: set admin.tokenFile or \(environmentVariable), or set admin.enabled to false"
            )
        }
        return AdminBearerToken(secret: secret)
    }

    /// The outcome of checking a request's `Authorization` fields.
    package enum Check: Equatable {
        case accepted
        /// No `Authorization` field (or not a Bearer one).
        case missing
        /// A Bearer credential that does not match.
        case invalid
    }

    package func check(authorization values: [String]) -> Check {
        guard values.count == 1, let value = values.first else { return values.isEmpty ? .missing : .invalid }
        let bytes = Array(value.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count, bytes[..<scheme.count].map(lowercased) == scheme else { return .missing }
        var credential = bytes[scheme.count...]
        while credential.first == UInt8(ascii: " ") { credential = credential.dropFirst() }
        return ConstantTime.equals(Array(credential), secret) ? .accepted : .invalid
    }

    private func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte
    }
}
