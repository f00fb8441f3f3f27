import CShims

/// A TLS protocol version, ordered oldest to newest.
public enum TLSProtocolVersion: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    case tls1_0 = 0
    case tls1_1 = 1
    case tls1_2 = 2
    case tls1_3 = 3

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The wire value OpenSSL uses (`TLS1_2_VERSION`, …).
    var openSSLValue: Int32 {
        switch self {
        case .tls1_0: shim_TLS1_VERSION
        case .tls1_1: shim_TLS1_1_VERSION
        case .tls1_2: shim_TLS1_2_VERSION
        case .tls1_3: shim_TLS1_3_VERSION
        }
    }

    init?(openSSLValue: Int32) {
        guard let match = Self.allCases.first(where: { $0.openSSLValue == openSSLValue }) else { return nil }
        self = match
    }

    /// The name OpenSSL and RFCs use: `TLSv1.2`.
    public var description: String {
        switch self {
        case .tls1_0: "TLSv1"
        case .tls1_1: "TLSv1.1"
        case .tls1_2: "TLSv1.2"
        case .tls1_3: "TLSv1.3"
        }
    }
}
