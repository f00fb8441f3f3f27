import HTTP1
import LifecycleCore

extension HTTPResponse {
    /// A JSON response from a ``JSONValue`` (compact, members in the order built).
    static func jsonDocument(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        .json(bytes: Array((value.serialized() + "\n").utf8), status: status)
    }
}
