import HTTP1
import LifecycleCore

extension HTTPResponse {
    /// A JSON response from a ``JSONValue`` (compact, members in the order built).
    static func jsonDocument(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        .json(bytes: value.serializedBytes() + [UInt8(ascii: "\n")], status: status)
    }
}
