import Testing

@testable import LifecycleCore

@Suite("JSONValue parsing")
struct JSONValueParsingTests {
    /// Regression (fuzzing, admin-request): `9223372036854775807.0` went through Double, became 2^63 and was
    /// refused as out of range, though JSON Schema counts it as the integer the OpenAPI file allows.
    @Test(
        "numbers whose value is a whole Int64 are exact integers however they are written",
        arguments: [
            ("158.0", Int64(158)), ("1.58e2", 158), ("15800e-2", 158), ("-0", 0), ("-0.0", 0), ("0e99999999", 0),
            ("9223372036854775807.0", .max), ("92233720368547758.07e2", .max), ("-9223372036854775808.000", .min),
            ("1e18", 1_000_000_000_000_000_000),
        ])
    func wholeNumbersAreExact(text: String, value: Int64) throws {
        #expect(try JSONValue.parse(text) == .integer(value))
    }

    @Test(
        "other numbers stay Double, and non-finite ones are refused",
        arguments: [
            ("158.5", 158.5), ("9223372036854775808.0", 9.223372036854775808e18), ("1e19", 1e19), ("1e-400", 0),
        ])
    func otherNumbers(text: String, value: Double) throws {
        #expect(try JSONValue.parse(text) == .number(value))
    }

    @Test("1e400, nesting deeper than the limit, duplicate names and trailing bytes are refused")
    func refusals() {
        for text in [
            "1e400", "-1e400", String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
            "{\"a\":1,\"a\":2}", "1 2", "[01]", "\"\\ud800\"",
        ] {
            #expect(JSONValue.parseIfValid(Array(text.utf8)) == nil, "\(text.prefix(20))")
        }
        let deepest =
            String(repeating: "[", count: JSONValue.maximumNestingDepth)
            + String(repeating: "]", count: JSONValue.maximumNestingDepth)
        #expect(JSONValue.parseIfValid(Array(deepest.utf8)) != nil)
    }

    /// Names are compared one by one in a small object and hashed past ``JSONParser/namesComparedOneByOne``
    /// members; both ways refuse a repeated name, with String's equality (canonically equivalent spellings are
    /// one name), and keep the members in document order.
    @Test(
        "a repeated member name is refused however many members come before it, in either spelling",
        arguments: [1, 15, 16, 17, 40])
    func duplicateNames(before count: Int) throws {
        let members = (0..<count).map { #""m\#($0)":\#($0)"# }
        let distinct = Array(("{" + members.joined(separator: ",") + "}").utf8)
        let parsed = try JSONValue.parse(distinct)
        #expect(parsed.objectValue?.keys == (0..<count).map { "m\($0)" })
        #expect(parsed["m\(count - 1)"] == .integer(Int64(count - 1)))
        for repeated in ["m0", "m\(count - 1)"] {
            let text = "{" + members.joined(separator: ",") + #","\#(repeated)":true}"#
            #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(text.utf8)) }
            do {
                _ = try JSONValue.parse(Array(text.utf8))
            } catch {
                #expect(error.reason == "duplicate member name")
            }
        }
        // "é" precomposed (C3 A9), then as "e" and a combining acute accent (65 CC 81).
        let first = Array(("{" + members.joined(separator: ",") + #","\#u{E9}":1"#).utf8)
        let second: [UInt8] = Array(#","e"#.utf8) + [0xCC, 0x81] + Array(#"":2}"#.utf8)
        #expect(JSONValue.parseIfValid(first + second) == nil)
    }

    @Test("true, false and null are read whole; a word cut short or run on is refused")
    func literals() throws {
        #expect(try JSONValue.parse("[true,false,null]") == .array([.bool(true), .bool(false), .null]))
        for text in ["tru", "nul", "fals", "[truee]", "nulls", "[t]", "True", "nuLL"] {
            #expect(JSONValue.parseIfValid(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test("a long run of fraction digits is parsed in linear time")
    func longFraction() throws {
        let text = "0." + String(repeating: "0", count: 1 << 20) + "1e1048577"
        #expect(try JSONValue.parse(text) == .integer(1))
    }

    /// Regression (fuzzing, json): 92233720368547751.5 is the Double 9.223372036854775e16, which was written
    /// in exponent form and read back as an integer, so a second round changed the text.
    @Test(
        "serialisation is a fixed point after one parse",
        arguments: ["[1.5,2.0,-0,1e300,\"\\u0000\"]", "{\"b\":1,\"a\":[{}]}", "[92233720368547751.5,1e20,1e001]"])
    func serialisationFixedPoint(text: String) throws {
        let once = try JSONValue.parse(text).serialized()
        #expect(try JSONValue.parse(once).serialized() == once)
    }

    /// The escaper copies the runs between characters that need escaping in one piece; the runs next to an
    /// escape, a combining mark right after a quote and multi-byte characters must come out whole.
    @Test("strings escape quotes, backslashes and control characters and keep every other character")
    func stringEscaping() throws {
        let value = JSONValue.string("a\"\u{301}b\\é\n\r\t\u{1}\u{1F}😀 end")
        #expect(value.serialized() == #""a\"\#u{301}b\\é\n\r\t\u0001\u001f😀 end""#)
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(JSONValue.string("").serialized() == #""""#)
        #expect(JSONValue.string("\"").serialized() == #""\"""#)
    }

    @Test("a streamed top-level array hands its elements over in order and leaves an empty array in the document")
    func streamedArray() throws {
        let text = #"{"a": 1, "rows": [{"n": 1}, [2], "three", {"rows": [4]}], "z": {"rows": [5]}}"#
        var handed: [JSONValue] = []
        let document = try JSONValue.parse(Array(text.utf8), streamingArray: "rows") { handed.append($0) }
        #expect(handed == [["n": 1], [2], "three", ["rows": [4]]])
        // Only the top-level member is streamed; the same name deeper is parsed as usual.
        #expect(document == ["a": 1, "rows": [], "z": ["rows": [5]]])
        // Apart from that array the document is the one parse gives.
        var whole = try JSONValue.parse(text)
        if case .object(var object) = whole {
            object["rows"] = .array([])
            whole = .object(object)
        }
        #expect(document == whole)
    }

    @Test(
        "streaming refuses what parse refuses",
        arguments: [#"{"rows": [1, 2,]}"#, #"{"rows": [1], "rows": [2]}"#, #"{"rows": [1]} x"#, #"{"rows": [1"#])
    func streamedRefusals(text: String) {
        #expect(throws: JSONParseError.self) {
            try JSONValue.parse(Array(text.utf8), streamingArray: "rows") { _ in }
        }
        #expect(JSONValue.parseIfValid(Array(text.utf8)) == nil)
    }

    @Test("a streamed member that is not an array stays in the document and hands nothing over")
    func streamedNonArray() throws {
        var handed = 0
        let document = try JSONValue.parse(Array(#"{"rows": "none"}"#.utf8), streamingArray: "rows") { _ in handed += 1
        }
        #expect(document == ["rows": "none"])
        #expect(handed == 0)
    }

    /// UTF-8 is validated where it can occur, in strings, as each is decoded (a byte of 0x80 or above anywhere
    /// else is no JSON syntax): long strings, strings with escapes, member names and streamed rows are judged
    /// as the whole document would be.
    @Test("invalid UTF-8 is refused wherever it is: in long strings, after escapes, in names, outside strings")
    func utf8Validation() throws {
        func document(_ middle: [UInt8]) -> [UInt8] { Array(#"{"a":""#.utf8) + middle + Array(#""}"#.utf8) }
        let twoByte: [UInt8] = [0xC3, 0xA9]  // é
        let accented = Array([[UInt8]](repeating: twoByte, count: 600_000).joined())
        #expect(try JSONValue.parse(document(accented)) == ["a": .string(String(repeating: "é", count: 600_000))])
        let ascii = [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) - 7)
        #expect(JSONValue.parseIfValid(document(ascii + twoByte + ascii)) != nil)
        // A sequence cut short, a lone continuation byte, an unfinished one at the end.
        #expect(JSONValue.parseIfValid(document(ascii + [0xC3] + ascii)) == nil)
        #expect(JSONValue.parseIfValid(document(ascii + [0xA9] + ascii)) == nil)
        #expect(JSONValue.parseIfValid(document(accented + [0xC3])) == nil)
        // After an escape, in a member name, and outside any string.
        #expect(try JSONValue.parse(document(Array(#"\n"#.utf8) + twoByte)) == ["a": "\né"])
        #expect(JSONValue.parseIfValid(document(Array(#"\n"#.utf8) + [0xC3])) == nil)
        #expect(JSONValue.parseIfValid(Array(#"{""#.utf8) + [0xFF] + Array(#"":1}"#.utf8)) == nil)
        #expect(JSONValue.parseIfValid(Array(#"{"a":1}"#.utf8) + [0xC3, 0xA9]) == nil)
        #expect(JSONValue.parseIfValid([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)) == nil)
        // A streamed row holding it refuses the document.
        #expect(throws: JSONParseError.self) {
            try JSONValue.parse(Array(#"{"rows":[""#.utf8) + [0xC3] + Array(#""]}"#.utf8), streamingArray: "rows") {
                _ in
            }
        }
    }
}
