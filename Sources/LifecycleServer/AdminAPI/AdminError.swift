import HTTP1
import LifecycleCore
import LifecycleEngine

/// A refusal of the admin API: an HTTP status plus a stable machine-readable `code` and a sentence for the
/// operator. Rendered as `{"error": code, "description": …}`; the CLI prints the description. Descriptions
/// never contain a `sub` or a token, so they are safe to log.
public struct AdminError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var code: AdminErrorCode
    public var detail: String

    /// `detail` is kept to one line of ``maximumDetailBytes`` (then `… (N bytes)`): some quote the request (a
    /// path's app id, a body's unknown member name).
    public init(status: Int, code: AdminErrorCode, _ detail: String) {
        self.init(status: status, code: code, kept: detail.quotedForError(maxBytes: Self.maximumDetailBytes))
    }

    /// `detail` as it is, already bounded.
    private init(status: Int, code: AdminErrorCode, kept detail: String) {
        self.status = status
        self.code = code
        self.detail = detail
    }

    public static let maximumDetailBytes = 512

    public var description: String { "\(code.rawValue): \(detail)".escapingControlCharacters }

    package var document: JSONValue { ["error": .string(code.rawValue), "description": .string(detail)] }

    var response: HTTPResponse {
        let httpStatus = (try? HTTPStatus(code: status)) ?? .internalServerError
        return .jsonDocument(document, status: httpStatus)
    }

    static func unknownApp(_ app: String) -> AdminError {
        AdminError(status: 404, code: .unknownApp, "no app '\(app.quotedForError(maxBytes: 64))' in the configuration")
    }

    /// A body member the route does not take: named, quoted to 64 bytes so what the route takes is always
    /// part of the answer, however long the name sent.
    static func unknownMember(_ name: String, accepted: [String]) -> AdminError {
        unprocessable(
            .unknownField,
            "unknown member '\(name.quotedForError(maxBytes: 64))'; accepted: \(accepted.joined(separator: ", "))")
    }

    static let unknownAccount = AdminError(
        status: 404, code: .unknownAccount, "this app has no record of the account")
    static let accountDeleted = AdminError(
        status: 409, code: .accountDeleted, "the account is deleted; deletion is terminal and cannot be re-linked")
    static let storageUnavailable = AdminError(
        status: 503, code: .storageUnavailable, "the store did not answer; try again")
    package static let notFound = AdminError(status: 404, code: .notFound, "no such admin route")

    static func badRequest(_ code: AdminErrorCode, _ detail: String) -> AdminError {
        AdminError(status: 400, code: code, detail)
    }

    static func unprocessable(_ code: AdminErrorCode, _ detail: String) -> AdminError {
        AdminError(status: 422, code: code, detail)
    }

    /// Rebuilds an error from a response body of the admin API (the CLI's `--url` mode).
    package init?(status: Int, document: JSONValue?) {
        guard let spelled = document?["error"]?.stringValue, let code = AdminErrorCode(rawValue: spelled) else {
            return nil
        }
        // As the service sent it (bounded there): cut again, its length would be the cut's.
        self.init(status: status, code: code, kept: document?["description"]?.stringValue ?? "")
    }
}

extension AdminError {
    /// Runs a store call, turning storage failures into `storage_unavailable` (logged without request data);
    /// an ``AdminError`` thrown by the body passes through.
    static func mappingStoreFailures<T>(log: EventLog, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AdminError {
            throw error
        } catch {
            log.log(.error, "admin.store_failed", [("error", .string(String(describing: error)))])
            throw AdminError.storageUnavailable
        }
    }
}
