/// Every code the admin API answers in `{"error": code, …}`: one closed set, snake_case like the reason
/// codes of the public listener (RFC 8935 `err`). The OpenAPI file lists exactly these (`Error.error`'s
/// `enum`, checked by a test), so a client can switch over them.
public enum AdminErrorCode: String, CaseIterable, Sendable, CustomStringConvertible {
    // Authentication and routing.
    case unauthorized = "unauthorized"
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case openAPIMissing = "openapi_missing"
    case storageUnavailable = "storage_unavailable"
    // Apple's REST API, during a link with an authorization code or refresh token.
    case appleUnavailable = "apple_unavailable"
    case appleClientRefused = "apple_client_refused"
    case appleGrantRefused = "apple_grant_refused"
    case identityTokenMismatch = "id_token_mismatch"
    case appleNotConfigured = "apple_not_configured"
    // Something the request names does not exist.
    case unknownApp = "unknown_app"
    case unknownAccount = "unknown_account"
    case unknownJob = "unknown_job"
    case unknownStep = "unknown_step"
    case unknownMessage = "unknown_message"
    case unknownField = "unknown_field"
    case unknownParameter = "unknown_parameter"
    case unknownRequest = "unknown_request"
    // The request conflicts with the current state.
    case accountDeleted = "account_deleted"
    case nothingToRetry = "nothing_to_retry"
    case notWaiting = "not_waiting"
    case notDead = "not_dead"
    case requestClosed = "request_closed"
    case alreadyExtended = "already_extended"
    case deadlinePassed = "deadline_passed"
    case alreadyHeld = "already_held"
    case notHeld = "not_held"
    // A value of the request is not acceptable.
    case invalidQuery = "invalid_query"
    case invalidLimit = "invalid_limit"
    case invalidAfter = "invalid_after"
    case invalidStatus = "invalid_status"
    case invalidResolved = "invalid_resolved"
    case invalidSub = "invalid_sub"
    case invalidPath = "invalid_path"
    case invalidBody = "invalid_body"
    case invalidClientID = "invalid_client_id"
    case invalidOutcome = "invalid_outcome"
    case invalidCount = "invalid_count"
    case invalidEventTime = "invalid_event_time"
    case eventTimeInFuture = "event_time_in_future"
    case invalidPeriod = "invalid_period"
    case malformedBody = "malformed_body"
    case extensionNotAllowed = "extension_not_allowed"
    case invalidDeadline = "invalid_deadline"
    case invalidNoticeAt = "invalid_notice_at"
    case invalidReason = "invalid_reason"

    /// The spelling on the wire, also in messages (`\(code)` prints it, not the case name).
    public var description: String { rawValue }
}
