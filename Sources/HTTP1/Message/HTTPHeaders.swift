/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1: field names are
/// case-insensitive; order of same-named fields is significant, §5.3).
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPField]

    public init() { fields = [] }

    public init(_ fields: [HTTPField]) { self.fields = fields }

    /// Literal headers are program text, so an invalid one is a programming error and traps.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { try! HTTPField(name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }

    /// The first value of the named field, if any.
    public subscript(name: String) -> String? {
        fields.first { HTTPTokens.equalsIgnoringCase($0.name.utf8, name) }?.value
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPTokens.equalsIgnoringCase($0.name.utf8, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func add(_ field: HTTPField) { fields.append(field) }

    /// Validates and appends a field.
    public mutating func add(name: String, value: String) throws(HTTPField.ValidationError) {
        fields.append(try HTTPField(name: name, value: value))
    }

    /// Replaces every field of that name with one validated field.
    public mutating func replace(name: String, value: String) throws(HTTPField.ValidationError) {
        let field = try HTTPField(name: name, value: value)
        remove(name)
        fields.append(field)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPTokens.equalsIgnoringCase($0.name.utf8, name) }
    }
}
