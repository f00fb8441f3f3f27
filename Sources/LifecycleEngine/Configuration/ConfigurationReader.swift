import LifecycleCore

/// Walks a JSON object field by field, remembering the path so every error names the field, and refusing
/// members nobody asked for: a misspelt key (`clientID` for `clientIds`) fails loudly instead of silently
/// falling back to a default.
struct ConfigurationReader {
    let file: String
    let path: String
    private let members: JSONObject
    private var consumed: Set<String> = []

    init(file: String, path: String, value: JSONValue) throws(ConfigurationError) {
        guard let members = value.objectValue else {
            throw ConfigurationError(
                file: file, field: path, problem: "expected an object, found \(value.kindName)", fix: "")
        }
        self.file = file
        self.path = path
        self.members = members
    }

    func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String, _ problem: String, fix: String) -> ConfigurationError {
        ConfigurationError(file: file, field: field(key), problem: problem, fix: fix)
    }

    private mutating func value(_ key: String) -> JSONValue? {
        consumed.insert(key)
        guard let value = members.first(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    mutating func string(_ key: String, fix: String) throws(ConfigurationError) -> String? {
        guard let value = value(key) else { return nil }
        guard let string = value.stringValue, !string.isEmpty else {
            throw error(key, "expected a non-empty string, found \(value.kindName)", fix: fix)
        }
        return string
    }

    mutating func string(_ key: String, default fallback: String, fix: String) throws(ConfigurationError) -> String {
        try string(key, fix: fix) ?? fallback
    }

    mutating func integer(
        _ key: String, default fallback: Int64, range: ClosedRange<Int64>, fix: String
    ) throws(ConfigurationError) -> Int64 {
        guard let value = value(key) else { return fallback }
        guard let integer = value.integerValue else {
            throw error(key, "expected an integer, found \(value.kindName)", fix: fix)
        }
        guard range.contains(integer) else {
            throw error(key, "\(integer) is out of range \(range.lowerBound)...\(range.upperBound)", fix: fix)
        }
        return integer
    }

    /// An integer that has no default: nil when the key is absent or `null`.
    mutating func optionalInteger(
        _ key: String, range: ClosedRange<Int64>, fix: String
    ) throws(ConfigurationError) -> Int64? {
        guard members.contains(where: { $0.key == key && $0.value != .null }) else {
            consumed.insert(key)
            return nil
        }
        return try integer(key, default: range.lowerBound, range: range, fix: fix)
    }

    mutating func bool(_ key: String, default fallback: Bool) throws(ConfigurationError) -> Bool {
        guard let value = value(key) else { return fallback }
        guard let bool = value.boolValue else {
            throw error(key, "expected true or false, found \(value.kindName)", fix: "")
        }
        return bool
    }

    mutating func strings(_ key: String, fix: String) throws(ConfigurationError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard let array = value.arrayValue else {
            throw error(key, "expected an array of strings, found \(value.kindName)", fix: fix)
        }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let string = element.stringValue, !string.isEmpty else {
                throw ConfigurationError(
                    file: file, field: "\(field(key))[\(index)]",
                    problem: "expected a non-empty string, found \(element.kindName)", fix: fix)
            }
            strings.append(string)
        }
        return strings
    }

    mutating func object(_ key: String) throws(ConfigurationError) -> ConfigurationReader? {
        guard let value = value(key) else { return nil }
        return try ConfigurationReader(file: file, path: field(key), value: value)
    }

    /// The object under `key`, or an empty one (all defaults) when the key is absent.
    mutating func objectOrEmpty(_ key: String) throws(ConfigurationError) -> ConfigurationReader {
        if let reader = try object(key) { return reader }
        return try ConfigurationReader(file: file, path: field(key), value: [:])
    }

    mutating func objects(_ key: String) throws(ConfigurationError) -> [ConfigurationReader]? {
        guard let value = value(key) else { return nil }
        guard let array = value.arrayValue else {
            throw error(key, "expected an array of objects, found \(value.kindName)", fix: "")
        }
        var readers: [ConfigurationReader] = []
        for (index, element) in array.enumerated() {
            readers.append(try ConfigurationReader(file: file, path: "\(field(key))[\(index)]", value: element))
        }
        return readers
    }

    /// Members of an object used as a map (`"targets": {"app-db": {...}}`), in file order.
    mutating func map(_ key: String) throws(ConfigurationError) -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard let members = value.objectValue else {
            throw error(key, "expected an object, found \(value.kindName)", fix: "")
        }
        return members
    }

    /// Fails on the first member not in `keys`. Called first thing for each object, so a misspelt key
    /// (`clientID`) is reported as itself rather than as the required key it was meant to be.
    func allow(_ keys: [String]) throws(ConfigurationError) {
        if let unknown = members.first(where: { !keys.contains($0.key) }) {
            throw ConfigurationError(
                file: file, field: field(unknown.key), problem: "unknown key",
                fix: "remove it or use one of: \(keys.sorted().joined(separator: ", "))")
        }
    }

    /// Fails on the first member that no accessor asked for, listing the keys that are understood here.
    func finish() throws(ConfigurationError) {
        if let unknown = members.first(where: { !consumed.contains($0.key) }) {
            throw ConfigurationError(
                file: file, field: field(unknown.key), problem: "unknown key",
                fix: "remove it or use one of: \(consumed.sorted().joined(separator: ", "))")
        }
    }
}
