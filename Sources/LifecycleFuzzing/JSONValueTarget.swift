import LifecycleCore

/// `JSONValue`, the one JSON parser every outside document goes through (RFC 8259).
///
/// Properties: parse → serialise → parse gives the same text again (serialisation is a fixed point after
/// one round, both member orders); no accepted object holds a duplicate member name; nesting stays within
/// ``JSONValue/maximumNestingDepth``; numbers keep their value through the round trip; parsing with a
/// top-level array streamed (how report files are read back) accepts exactly what parse accepts and hands over
/// that array's elements, in order.
enum JSONValueTarget {
    static let target = FuzzTarget(
        name: "json",
        summary:
            "JSONValue: parse-serialise-parse fixed point, no duplicate names, depth limit, numbers kept, streaming agrees",
        check: check)

    static func check(_ bytes: [UInt8]) throws(PropertyFailure) {
        let parsed = JSONValue.parseIfValid(bytes)
        try requireStreamingAgrees(bytes, parsed: parsed)
        guard let value = parsed else { return }
        try requireWellFormed(value, depth: 0)
        for sorted in [false, true] {
            let text = value.serialized(sortedKeys: sorted)
            guard let again = JSONValue.parseIfValid(Array(text.utf8)) else {
                throw PropertyFailure("serialised text does not parse: \(text.prefix(200))")
            }
            try require(again.serialized(sortedKeys: sorted) == text, "serialisation is not a fixed point")
            try requireSameNumbers(value, again)
        }
        let pretty = value.serialized(pretty: true)
        try require(
            JSONValue.parseIfValid(Array(pretty.utf8))?.serialized()
                == JSONValue.parseIfValid(
                    Array(value.serialized().utf8))?.serialized(), "pretty and compact text differ in content")
    }

    /// Streams the first top-level member (or `rows` when there is none): same verdict as parse, the same
    /// elements in order, and the same document with that array emptied.
    static func requireStreamingAgrees(_ bytes: [UInt8], parsed: JSONValue?) throws(PropertyFailure) {
        var member = "rows"
        if case .object(let object) = parsed, let first = object.members.first { member = first.key }
        var handed: [JSONValue] = []
        let streamed = try? JSONValue.parse(bytes, streamingArray: member) { handed.append($0) }
        guard let parsed else {
            try require(streamed == nil, "streaming accepted a document parse refuses")
            return
        }
        guard let streamed else { throw PropertyFailure("streaming refused a document parse accepts") }
        guard case .object(var object) = parsed, let elements = object[member]?.arrayValue else {
            try require(streamed == parsed && handed.isEmpty, "streaming changed a document without that array")
            return
        }
        try require(handed == elements, "streaming handed over other elements than the array holds")
        object[member] = .array([])
        try require(streamed == .object(object), "streaming changed the rest of the document")
    }

    static func requireWellFormed(_ value: JSONValue, depth: Int) throws(PropertyFailure) {
        switch value {
        case .array(let elements):
            try require(depth < JSONValue.maximumNestingDepth, "nesting beyond the limit was accepted")
            for element in elements { try requireWellFormed(element, depth: depth + 1) }
        case .object(let members):
            try require(depth < JSONValue.maximumNestingDepth, "nesting beyond the limit was accepted")
            try require(Set(members.keys).count == members.count, "an object with a duplicate member name was accepted")
            for member in members { try requireWellFormed(member.value, depth: depth + 1) }
        case .number(let double):
            try require(double.isFinite, "a non-finite number was accepted")
        case .null, .bool, .integer, .string:
            break
        }
    }

    /// Integers stay exact; other numbers keep their Double value (an integral one may come back as .integer).
    static func requireSameNumbers(_ a: JSONValue, _ b: JSONValue) throws(PropertyFailure) {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): try require(x == y, "integer \(x) came back as \(y)")
        case (.number(let x), .number(let y)): try require(x == y, "number \(x) came back as \(y)")
        case (.number(let x), .integer(let y)): try require(x == Double(y), "number \(x) came back as \(y)")
        case (.array(let x), .array(let y)):
            try require(x.count == y.count, "array length changed")
            for (p, q) in zip(x, y) { try requireSameNumbers(p, q) }
        case (.object(let x), .object(let y)):
            try require(x.count == y.count, "member count changed")
            for member in x {
                guard let other = y[member.key] else { throw PropertyFailure("member \(member.key) was lost") }
                try requireSameNumbers(member.value, other)
            }
        case (.null, .null), (.bool, .bool), (.string, .string): break
        default: throw PropertyFailure("\(a.kindName) came back as \(b.kindName)")
        }
    }
}
