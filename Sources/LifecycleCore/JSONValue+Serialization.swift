extension JSONValue {
    /// Compact JSON text. Object members keep their order, so output is deterministic; with
    /// `sortedKeys` members are sorted by name (a canonical form for hashing and signing).
    public func serialized(sortedKeys: Bool = false, pretty: Bool = false) -> String {
        var output = ""
        write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: 0)
        return output
    }

    /// Pretty JSON text as it reads `indent` levels deep in an enclosing document: a renderer that streams a
    /// long array writes each element with this, and the bytes equal those of the whole document serialized.
    public func serialized(pretty: Bool, indent: Int) -> String {
        var output = ""
        write(into: &output, sortedKeys: false, pretty: pretty, indent: indent)
        return output
    }

    private func write(into output: inout String, sortedKeys: Bool, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value):
            // A whole value in Int64 range is written as an integer, which is how the parser reads it back.
            output += Int64(exactly: value).map { String($0) } ?? String(value)
        case .string(let value): JSONValue.writeString(value, into: &output)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                if pretty { output += JSONValue.lineBreak(indent + 1) }
                element.write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += JSONValue.lineBreak(indent) }
            output += "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            let ordered =
                sortedKeys ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members.members
            output += "{"
            for (offset, member) in ordered.enumerated() {
                if offset > 0 { output += "," }
                if pretty { output += JSONValue.lineBreak(indent + 1) }
                JSONValue.writeString(member.key, into: &output)
                output += pretty ? ": " : ":"
                member.value.write(into: &output, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += JSONValue.lineBreak(indent) }
            output += "}"
        }
    }

    /// A newline and `indent` levels of two spaces, made once per level: pretty-printing a large report wrote
    /// one per member, and building each anew was a tenth of rendering it.
    private static let lineBreaks = (0...(maximumNestingDepth + 1)).map { "\n" + String(repeating: "  ", count: $0) }

    private static func lineBreak(_ indent: Int) -> String {
        indent < lineBreaks.count ? lineBreaks[indent] : "\n" + String(repeating: "  ", count: indent)
    }

    /// RFC 8259 §7 string escaping; non-ASCII stays as UTF-8. The bytes between two characters that need
    /// escaping are copied as one run: a log line or a webhook body is mostly such runs, and appending scalar by
    /// scalar was a measurable share of the ingest path.
    static func writeString(_ value: String, into output: inout String) {
        output += "\""
        let utf8 = value.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else {
                index = utf8.index(after: index)
                continue
            }
            // An ASCII byte starts a scalar, so both ends of the run are scalar boundaries.
            if runStart != index { output += String(value.unicodeScalars[runStart..<index]) }
            switch byte {
            case UInt8(ascii: "\""): output += "\\\""
            case UInt8(ascii: "\\"): output += "\\\\"
            case UInt8(ascii: "\n"): output += "\\n"
            case UInt8(ascii: "\r"): output += "\\r"
            case UInt8(ascii: "\t"): output += "\\t"
            default:
                let hex = String(byte, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            index = utf8.index(after: index)
            runStart = index
        }
        if runStart == utf8.startIndex {
            // Nothing needed escaping (most strings): the value itself, without a copy of it first.
            output += value
        } else if runStart != utf8.endIndex {
            output += String(value.unicodeScalars[runStart..<utf8.endIndex])
        }
        output += "\""
    }
}

extension JSONValue {
    /// Compact UTF-8 with members sorted by key: the canonical form for hashing, signing and JWS segments.
    public func encoded() -> [UInt8] { Array(serialized(sortedKeys: true).utf8) }

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
