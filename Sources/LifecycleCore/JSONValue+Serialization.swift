extension JSONValue {
    /// Compact JSON text. Object members keep their order, so output is deterministic; with
    /// `sortedKeys` members are sorted by name (a canonical form for hashing and signing).
    public func serialized(sortedKeys: Bool = false, pretty: Bool = false) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys, pretty: pretty), as: UTF8.self)
    }

    /// The UTF-8 bytes of ``serialized(sortedKeys:pretty:)``, without making a `String` of them; with `indent`,
    /// pretty text as it reads that many levels deep in an enclosing document (a renderer that streams a long
    /// array writes each element so, and the bytes equal those of the whole document serialized).
    ///
    /// The text is built as bytes: appending to a `String` re-checks its capacity, UTF-8 and ASCII flags on
    /// every piece, which was most of the time a large report's JSON took to render.
    public func serializedBytes(sortedKeys: Bool = false, pretty: Bool = false, indent: Int = 0) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: indent)
        return output
    }

    /// The same bytes appended to `output`: a renderer that streams a long array reuses one buffer for
    /// every element.
    public func serialize(into output: inout [UInt8], sortedKeys: Bool = false, pretty: Bool = false, indent: Int = 0) {
        write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: indent)
    }

    private func write(into output: inout [UInt8], sortedKeys: Bool, pretty: Bool, indent: Int) {
        switch self {
        case .null: JSONValue.append("null", to: &output)
        case .bool(let value): JSONValue.append(value ? "true" : "false", to: &output)
        case .integer(let value): JSONValue.writeInteger(value, into: &output)
        case .number(let value): JSONValue.writeNumber(value, into: &output)
        case .string(let value): JSONValue.writeString(value, into: &output)
        case .array(let elements):
            if elements.isEmpty {
                JSONValue.append("[]", to: &output)
                return
            }
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { JSONValue.appendLineBreak(indent + 1, to: &output) }
                element.write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSONValue.appendLineBreak(indent, to: &output) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                JSONValue.append("{}", to: &output)
                return
            }
            let ordered =
                sortedKeys ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members.members
            output.append(UInt8(ascii: "{"))
            for (offset, member) in ordered.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { JSONValue.appendLineBreak(indent + 1, to: &output) }
                JSONValue.writeString(member.key, into: &output)
                JSONValue.append(pretty ? ": " : ":", to: &output)
                member.value.write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSONValue.appendLineBreak(indent, to: &output) }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeInteger(_ value: Int64, into output: inout [UInt8]) {
        output.append(contentsOf: String(value).utf8)
    }

    /// A whole value in Int64 range is written as an integer, which is how the parser reads it back.
    static func writeNumber(_ value: Double, into output: inout [UInt8]) {
        output.append(contentsOf: (Int64(exactly: value).map { String($0) } ?? String(value)).utf8)
    }

    private static func append(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A newline and `indent` levels of two spaces, made once per level: pretty-printing a large report wrote
    /// one per member, and building each anew was a tenth of rendering it.
    private static let lineBreaks: [[UInt8]] = (0...(maximumNestingDepth + 1)).map {
        [UInt8(ascii: "\n")] + [UInt8](repeating: UInt8(ascii: " "), count: 2 * $0)
    }

    private static func appendLineBreak(_ indent: Int, to output: inout [UInt8]) {
        if indent < lineBreaks.count {
            output.append(contentsOf: lineBreaks[indent])
        } else {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
        }
    }

    /// RFC 8259 §7 string escaping; non-ASCII stays as UTF-8. The bytes between two that need escaping are
    /// copied as one run: a log line or a webhook body is mostly such runs.
    static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                // An ASCII byte is a scalar of its own, so both ends of the run are scalar boundaries.
                if runStart < index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                switch byte {
                case UInt8(ascii: "\""): append("\\\"", to: &output)
                case UInt8(ascii: "\\"): append("\\\\", to: &output)
                case UInt8(ascii: "\n"): append("\\n", to: &output)
                case UInt8(ascii: "\r"): append("\\r", to: &output)
                case UInt8(ascii: "\t"): append("\\t", to: &output)
                default:
                    // \u00XX, lowercase hex.
                    append("\\u00", to: &output)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
                runStart = index + 1
            }
            if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

extension JSONValue {
    /// Compact UTF-8 with members sorted by key: the canonical form for hashing, signing and JWS segments.
    public func encoded() -> [UInt8] { serializedBytes(sortedKeys: true) }

    /// ``encoded()`` as a string.
    public var encodedString: String { serialized(sortedKeys: true) }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}
