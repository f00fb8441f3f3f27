/// The members of a JSON object in document order. Looks like a dictionary (`object["alg"]`, dictionary
/// literals) but keeps order, so configuration errors name the first offending key and output is stable.
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)

    public private(set) var members: [Member]

    public init() { members = [] }

    /// Members in the given order. Later duplicates replace earlier ones.
    public init(members: [Member]) {
        self.members = []
        for member in members { self[member.key] = member.value }
    }

    /// Members already known to have distinct keys (the parser refuses duplicates), kept as they are.
    init(distinctMembers members: [Member]) {
        self.members = members
    }

    /// A dictionary's members sorted by key (dictionaries have no order of their own).
    public init(_ dictionary: [String: JSONValue]) {
        members = dictionary.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { (key: $0.key, value: $0.value) }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(members: elements.map { (key: $0.0, value: $0.1) })
    }

    /// The member's value; assigning nil removes it, assigning a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}
