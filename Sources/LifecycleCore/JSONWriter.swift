/// Compact JSON written straight into bytes, value by value: the same text as building the ``JSONValue`` and
/// serializing it (compact, members in the order written), without building the tree. For documents written
/// millions of times, such as a report's rows: the tree cost an allocation and a reference count per member,
/// and checking its member names for duplicates.
///
/// Commas are the writer's: inside ``object(_:)`` each ``key(_:)`` is followed by one value; inside
/// ``array(_:)`` values follow one another.
public struct JSONWriter {
    public var bytes: [UInt8]
    /// A value has been written at this level, so the next key or array element needs a comma.
    private var pendingComma = false
    /// A key has just been written: the next value is its value, with no comma before it.
    private var afterKey = false

    public init(into bytes: consuming [UInt8] = []) {
        self.bytes = bytes
    }

    /// Empties ``bytes``, keeping their capacity, to write the next document: one buffer serves a million rows.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        pendingComma = false
        afterKey = false
    }

    /// A member name, then its `:`. Names are literals of the program, written as they are: each must need no
    /// escaping (no quote, backslash or control character).
    public mutating func key(_ name: StaticString) {
        if pendingComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    /// An array of `elements`, each written by `element`.
    public mutating func array<Elements: Sequence>(
        _ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void
    ) {
        array { writer in
            for value in elements { element(&writer, value) }
        }
    }

    public mutating func string(_ value: String) {
        beginValue()
        JSONValue.writeString(value, into: &bytes)
        pendingComma = true
    }

    public mutating func integer(_ value: Int) {
        beginValue()
        JSONValue.writeInteger(Int64(value), into: &bytes)
        pendingComma = true
    }

    public mutating func number(_ value: Double) {
        beginValue()
        JSONValue.writeNumber(value, into: &bytes)
        pendingComma = true
    }

    public mutating func bool(_ value: Bool) {
        self.value(JSONValue.bool(value))
    }

    public mutating func null() {
        self.value(JSONValue.null)
    }

    /// An instant as ``Instant/iso8601`` writes it, quoted.
    public mutating func instant(_ value: Instant) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        ISO8601Format.write(value, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
        pendingComma = true
    }

    /// Any value, serialized compact as ``JSONValue/serializedBytes(sortedKeys:pretty:indent:)`` writes it; with
    /// `sortedKeys`, the members of its objects sorted by name (``JSONValue/encoded()``).
    public mutating func value(_ value: JSONValue, sortedKeys: Bool = false) {
        beginValue()
        value.serialize(into: &bytes, sortedKeys: sortedKeys)
        pendingComma = true
    }

    /// The value, or `null`.
    public mutating func optional<Value>(_ value: Value?, _ write: (inout JSONWriter, Value) -> Void) {
        if let value { write(&self, value) } else { null() }
    }

    // A member, its name and its value in one call; an optional value is written as `null` when absent (a value
    // that is not optional is passed as a present one).

    public mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        optional(value) { $0.string($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Int?) {
        key(name)
        optional(value) { $0.integer($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Double?) {
        key(name)
        optional(value) { $0.number($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Bool?) {
        key(name)
        optional(value) { $0.bool($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Instant?) {
        key(name)
        optional(value) { $0.instant($1) }
    }

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
        } else if pendingComma {
            bytes.append(UInt8(ascii: ","))
        }
    }

    private mutating func open(_ byte: UInt8) {
        beginValue()
        bytes.append(byte)
        pendingComma = false
    }

    private mutating func close(_ byte: UInt8) {
        bytes.append(byte)
        pendingComma = true
        afterKey = false
    }
}
