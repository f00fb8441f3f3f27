/// A JSON document as a value, keeping what `JSONSerialization` loses on Linux: integers stay integers
/// (never confused with booleans), object member order is preserved, and duplicate member names are an
/// error (RFC 8259 §4 leaves them undefined; a verifier and a configuration reader must not guess).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number with a fraction or exponent, or an integer outside the Int64 range.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(v)
        case .integer(let v): hasher.combine(v)
        case .number(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .array(let v): hasher.combine(v)
        case .object(let members): hasher.combine(members)
        }
    }

    /// The member named `key` of an object, nil for anything else.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// A short name for the kind of value, for error messages ("expected a string, found an integer").
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
