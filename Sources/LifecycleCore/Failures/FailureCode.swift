/// Why something the service attempted failed: one closed set with one spelling, snake_case like RFC 8935's
/// `err` values and the verifier's reason codes, used alike in stored erasure evidence, the outbox's last
/// error, admin responses, log fields, metric labels and reports.
///
/// Codes are stable: reports keep them for years and operators alert on them, so a case is never renamed.
/// A code never carries a `sub`, an address or a server's message; the words go next to it, not in it.
public enum FailureCode: Hashable, Sendable, CustomStringConvertible {
    // The HTTP client (webhook receivers, erasure webhooks).
    case timedOut
    case connectFailed
    case connectionClosed
    case malformedResponse
    case responseTooLarge
    case invalidAddress
    case tlsHandshakeFailed
    case transportFailed
    /// The receiver answered a status outside 2xx.
    case httpStatus(Int)

    // Configuration met at run time.
    case noWebhookConfigured
    case webhookURLInvalid
    case webhookHeaderInvalid
    case appUnknown
    case targetUnknown

    // The service's own store and the apps' databases.
    case storeUnavailable
    case databaseError
    case noVerificationQuery
    /// The verification query still found rows after the erasure statements ran.
    case verificationNonzero
    case sqliteOpen
    case sqliteBusy
    case sqlitePrepare
    case sqliteParameter
    case sqliteStep
    /// The app's readers kept the write-ahead log busy, so it could not be truncated.
    case sqliteWALBusy
    case postgresConnect
    case postgresParameter
    case postgresStatement

    /// Every code without a parameter, for parsing and for documentation tables.
    public static let simpleCases: [FailureCode] = [
        .timedOut, .connectFailed, .connectionClosed, .malformedResponse, .responseTooLarge, .invalidAddress,
        .tlsHandshakeFailed, .transportFailed, .noWebhookConfigured, .webhookURLInvalid, .webhookHeaderInvalid,
        .appUnknown, .targetUnknown, .storeUnavailable, .databaseError, .noVerificationQuery, .verificationNonzero,
        .sqliteOpen, .sqliteBusy, .sqlitePrepare, .sqliteParameter, .sqliteStep, .sqliteWALBusy, .postgresConnect,
        .postgresParameter, .postgresStatement,
    ]

    private static let bySpelling: [String: FailureCode] = Dictionary(
        uniqueKeysWithValues: simpleCases.map { ($0.rawValue, $0) })

    /// The one spelling: `connect_failed`, `http_503`.
    public var rawValue: String {
        switch self {
        case .timedOut: "timed_out"
        case .connectFailed: "connect_failed"
        case .connectionClosed: "connection_closed"
        case .malformedResponse: "malformed_response"
        case .responseTooLarge: "response_too_large"
        case .invalidAddress: "invalid_address"
        case .tlsHandshakeFailed: "tls_handshake_failed"
        case .transportFailed: "transport_failed"
        case .httpStatus(let status): "http_\(status)"
        case .noWebhookConfigured: "no_webhook_configured"
        case .webhookURLInvalid: "webhook_url_invalid"
        case .webhookHeaderInvalid: "webhook_header_invalid"
        case .appUnknown: "app_unknown"
        case .targetUnknown: "target_unknown"
        case .storeUnavailable: "store_unavailable"
        case .databaseError: "database_error"
        case .noVerificationQuery: "no_verification_query"
        case .verificationNonzero: "verification_nonzero"
        case .sqliteOpen: "sqlite_open"
        case .sqliteBusy: "sqlite_busy"
        case .sqlitePrepare: "sqlite_prepare"
        case .sqliteParameter: "sqlite_parameter"
        case .sqliteStep: "sqlite_step"
        case .sqliteWALBusy: "sqlite_wal_busy"
        case .postgresConnect: "postgres_connect"
        case .postgresParameter: "postgres_parameter"
        case .postgresStatement: "postgres_statement"
        }
    }

    /// Parses the one spelling; `nil` for anything else (a stored value that is not a code is unreadable,
    /// not silently another code). `http_NNN` needs a three-digit status 100–599.
    public init?(rawValue: String) {
        if let code = Self.bySpelling[rawValue] {
            self = code
            return
        }
        guard rawValue.hasPrefix("http_"), rawValue.utf8.count == 8,
            let status = Int(rawValue.dropFirst(5)), (100...599).contains(status)
        else { return nil }
        self = .httpStatus(status)
    }

    public var description: String { rawValue }
}
