import Foundation

/// A parsed JSON value, so the validator can walk a policy field by field, name every unknown key and
/// report all problems at once (a typed `Decodable` stops at the first and ignores unknown keys).
enum PolicyJSONValue: Decodable, Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([PolicyJSONValue])
    case object([String: PolicyJSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([PolicyJSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: PolicyJSONValue].self))
        }
    }

    /// How the value's type reads in an error message.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
