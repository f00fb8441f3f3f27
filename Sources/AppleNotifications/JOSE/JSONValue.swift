import FoundationEssentials

/// A JSON value as decoded from a JOSE header or claims set (RFC 8259), kept lossless enough to print back
/// (`lifecycle inspect`) and to read claims without a fixed schema, since Apple's real claims differ from
/// the documented ones (DOMAIN.md §1).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// Any JSON number without fraction or exponent that fits in 64 bits (timestamps, counts).
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Parses one JSON text from UTF-8 bytes. Nil on invalid UTF-8 or invalid JSON (RFC 8259 §8.1).
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// Compact UTF-8 JSON with sorted keys and unescaped `/`, so output is deterministic and `iss` reads as
    /// `https://appleid.apple.com`.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail except for non-finite doubles, which JSON cannot represent.
        guard let data = try? encoder.encode(self) else { return Array("null".utf8) }
        return Array(data)
    }

    public var encodedString: String { String(decoding: encoded(), as: UTF8.self) }
}
