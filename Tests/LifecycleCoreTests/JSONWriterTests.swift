import Testing

@testable import LifecycleCore

/// The writer must give the bytes of the tree it replaces: a report's rows are hashed and verified against
/// what the JSON file holds.
@Suite("JSONWriter")
struct JSONWriterTests {
    static let instant = Instant(millisecondsSinceEpoch: 1_764_000_123_456)

    /// Every kind of value, at every position where a comma goes or must not: first and later members, values
    /// after nested objects and arrays, empty containers, nulls, escapes and non-ASCII text.
    static func written(into writer: inout JSONWriter, name: String, count: Int?) {
        writer.object { w in
            w.key("name")
            w.string(name)
            w.key("count")
            w.optional(count) { $0.integer($1) }
            w.key("ratio")
            w.number(2.5)
            w.key("whole")
            w.number(3)
            w.key("at")
            w.instant(instant)
            w.key("nested")
            w.object { w in
                w.key("empty")
                w.array([Int]()) { $0.integer($1) }
                w.key("flags")
                w.array([true, false]) { $0.bool($1) }
            }
            w.key("rows")
            w.array([1, 2]) { w, n in
                w.object { w in
                    w.key("n")
                    w.integer(n)
                    w.key("none")
                    w.null()
                }
            }
            w.key("tree")
            w.value(["a": [1, 2], "b": .null])
            w.key("last")
            w.object { _ in }
        }
    }

    static func tree(name: String, count: Int?) -> JSONValue {
        [
            "name": .string(name), "count": count.map { .integer(Int64($0)) } ?? .null, "ratio": .number(2.5),
            "whole": .number(3), "at": .string(instant.iso8601),
            "nested": ["empty": [], "flags": [true, false]],
            "rows": [["n": 1, "none": .null], ["n": 2, "none": .null]],
            "tree": ["a": [1, 2], "b": .null], "last": .object(JSONObject(members: [])),
        ]
    }

    @Test("writes the bytes a JSONValue tree serializes to", arguments: ["plain", "quote \" back \\ tab \t é 🎉"])
    func sameBytesAsTheTree(name: String) {
        for count in [Int?.none, 7] {
            var writer = JSONWriter()
            Self.written(into: &writer, name: name, count: count)
            let tree = Self.tree(name: name, count: count).serializedBytes()
            #expect(
                writer.bytes == tree,
                "\(String(decoding: writer.bytes, as: UTF8.self)) != \(String(decoding: tree, as: UTF8.self))")
        }
    }

    @Test("after reset the next document starts without a comma, and the buffer is reused")
    func resetStartsAfresh() {
        var writer = JSONWriter()
        Self.written(into: &writer, name: "first", count: 1)
        writer.reset()
        #expect(writer.bytes.isEmpty)
        Self.written(into: &writer, name: "second", count: nil)
        #expect(writer.bytes == Self.tree(name: "second", count: nil).serializedBytes())
    }

    @Test("instants written as bytes are the text iso8601 gives, inside and outside years 0000 to 9999")
    func instantBytes() {
        for milliseconds: Int64 in [
            0, -1, 1_764_000_123_456, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001,
        ] {
            let instant = Instant(millisecondsSinceEpoch: milliseconds)
            var bytes: [UInt8] = [1]
            ISO8601Format.write(instant, into: &bytes)
            #expect(bytes == [1] + Array(instant.iso8601.utf8), "\(milliseconds)")
        }
    }
}
