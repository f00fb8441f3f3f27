/// Why a JSON text was refused, with the byte offset of the problem.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Limits that keep a hostile document from exhausting the stack.
    public static let maximumNestingDepth = 64

    /// Parses one JSON text (RFC 8259) from UTF-8 bytes. Invalid UTF-8, trailing content, duplicate
    /// object member names and nesting beyond ``maximumNestingDepth`` are errors.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue {
        try Array(bytes).withUnsafeBufferPointer { bytes throws(JSONParseError) in
            var parser = JSONParser(bytes: bytes)
            return try parser.parseDocument()
        }
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// The parsed document, or nil when the bytes are not exactly one valid JSON text.
    public static func parseIfValid<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> JSONValue? {
        try? parse(bytes)
    }

    /// Parses one JSON text as ``parse(_:)`` does, except that the elements of the array held by the top-level
    /// object's member `member` are handed to `element` one at a time, in order, as they are parsed, and not
    /// kept: the returned document holds an empty array there. So a document whose bulk is one array (a
    /// report's rows) is never whole in memory as values. Elements already handed over stay handed over when a
    /// later byte makes the document invalid, so a caller acts on them only once this returns.
    public static func parse(
        _ bytes: [UInt8], streamingArray member: String, element: (JSONValue) -> Void
    ) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { bytes throws(JSONParseError) in
            try parse(bytes, streamingArray: member) { value, _ in element(value) }
        }
    }

    /// ``parse(_:streamingArray:element:)`` over bytes held elsewhere (a mapped file), each element handed over
    /// with the offset just past it: every byte before that offset has been read for the last time, so a
    /// caller may let go of those pages.
    public static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, streamingArray member: String, element: (JSONValue, Int) -> Void
    ) throws(JSONParseError) -> JSONValue {
        try withoutActuallyEscaping(element) { element throws(JSONParseError) in
            var parser = JSONParser(bytes: bytes)
            parser.streamed = (member, element)
            return try parser.parseDocument()
        }
    }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// The top-level member whose array elements are handed over instead of kept, and where to.
    var streamed: (member: String, element: (JSONValue, Int) -> Void)?

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// UTF-8 is checked where it can occur: a byte of 0x80 or above outside a string is no JSON syntax, so the
    /// document is valid UTF-8 exactly when its strings are, and each is validated as it is decoded. One pass
    /// over the bytes, and a streamed document is read once, in order.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected content after the JSON value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("invalid literal") }
        let expected = word.utf8Start
        for offset in 0..<count where bytes[index + offset] != expected[offset] { throw fail("invalid literal") }
        index += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONValue.maximumNestingDepth else { throw fail("nesting too deep") }
    }

    /// Up to this many members, a new member's name is compared with each name before it.
    static let namesComparedOneByOne = 16

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONObject.Member] = []
        // Names are compared one by one while an object is small (most are), and hashed once it is not.
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(distinctMembers: members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parseString()
            if members.count < Self.namesComparedOneByOne {
                guard !members.contains(where: { $0.key == key }) else { throw fail("duplicate member name") }
            } else {
                if seen.isEmpty { seen = Set(members.lazy.map(\.key)) }
                guard seen.insert(key).inserted else { throw fail("duplicate member name") }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            if depth == 1, let streamed, key == streamed.member, index < bytes.count, bytes[index] == UInt8(ascii: "[")
            {
                members.append((key, try parseArray(handingTo: streamed.element)))
            } else {
                members.append((key, try parseValue()))
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            index += 1
            return .object(JSONObject(distinctMembers: members))
        }
    }

    /// `handingTo`: each element goes there instead of into the array, which comes back empty.
    mutating func parseArray(handingTo handler: ((JSONValue, Int) -> Void)? = nil) throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            let element = try parseValue()
            if let handler { handler(element, index) } else { elements.append(element) }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            index += 1
            return .array(elements)
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var runStart = index
        var utf8 = [UInt8]()
        // No byte of 0x80 or above seen: the string is ASCII (escapes decode to valid UTF-8), so it needs no
        // validation, and decoding skips the generic validator's work.
        var ascii = true
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // Most strings have no escape: decoded straight from the input, without a copy.
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                let text: String? =
                    switch (utf8.isEmpty, ascii) {
                    case (true, true): String(decoding: run, as: UTF8.self)
                    case (true, false): String(validating: run, as: UTF8.self)
                    case (false, true): String(decoding: utf8 + run, as: UTF8.self)
                    case (false, false): String(validating: utf8 + run, as: UTF8.self)
                    }
                guard let text else {
                    index = runStart
                    throw fail("invalid UTF-8")
                }
                index += 1
                return text
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte != UInt8(ascii: "\\") {
                if byte >= 0x80 { ascii = false }
                index += 1
                continue
            }
            utf8.append(contentsOf: bytes[runStart..<index])
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): utf8.append(0x22)
            case UInt8(ascii: "\\"): utf8.append(0x5C)
            case UInt8(ascii: "/"): utf8.append(0x2F)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw fail("unpaired surrogate") }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw fail("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid escape") }
                utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw fail("invalid escape")
            }
            runStart = index
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        if !isInteger, let integer = Self.exactInteger(bytes[start..<index]) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw fail("number out of range") }
        return .number(double)
    }

    /// The exact Int64 value of a number written with a fraction or exponent when that value is a whole
    /// number in range (`158.0`, `1.58e2`, `9223372036854775807.0`, `92233720368547758.07e2`); nil otherwise.
    /// JSON Schema counts these as integers (2020-12 validation §6.3), and going through Double would round
    /// anything above 2^53. Decimal arithmetic with overflow reported; at most 19 significant digits matter
    /// before an overflow ends it, so no loop runs longer than the text.
    static func exactInteger(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var index = text.startIndex
        let negative = text[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var digits: [UInt8] = []
        digits.reserveCapacity(text.count)
        var fractionLength = 0
        var inFraction = false
        while index < text.endIndex, text[index] != UInt8(ascii: "e"), text[index] != UInt8(ascii: "E") {
            if text[index] == UInt8(ascii: ".") {
                inFraction = true
            } else {
                digits.append(text[index] - 0x30)
                if inFraction { fractionLength += 1 }
            }
            index += 1
        }
        var exponent = 0
        if index < text.endIndex {
            index += 1
            var exponentNegative = false
            if text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < text.endIndex {
                let (shifted, overflow1) = exponent.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = shifted.addingReportingOverflow(Int(text[index] - 0x30))
                // An exponent larger than the text is long cannot leave a whole Int64 (unless the digits are 0).
                if overflow1 || overflow2 || sum > text.count + 19 { return digits.allSatisfy { $0 == 0 } ? 0 : nil }
                exponent = sum
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // value = digits × 10^(exponent − fractionLength); drop leading zeros, then trailing zeros a negative
        // power would divide away.
        guard let first = digits.firstIndex(where: { $0 != 0 }) else { return 0 }
        var last = digits.count
        var scale = exponent - fractionLength
        while scale < 0, digits[last - 1] == 0 {
            last -= 1
            scale += 1
        }
        guard scale >= 0, last - first + scale <= 19 else { return nil }
        var magnitude: Int64 = 0
        for digit in digits[first..<last] + Array(repeating: 0, count: scale) {
            let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative
                ? shifted.subtractingReportingOverflow(Int64(digit)) : shifted.addingReportingOverflow(Int64(digit))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
        }
        return magnitude
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
