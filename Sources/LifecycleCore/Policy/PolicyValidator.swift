import Foundation

/// Reads a policy file and checks it completely, returning an ``ErasurePolicy`` or every problem found,
/// each naming the file, the field and the fix (DESIGN.md §7).
///
/// Checks: JSON shape and types; unknown keys (a misspelt `cancelIfRelinked` must not silently mean
/// false); `id`, `version` (≥ 1), `jurisdiction`, `timezone` (an IANA zone known to this system) and
/// `rules` (non-empty) present; triggers from ``PolicyTrigger``; categories from ``DataCategory``;
/// durations as ``ISODuration`` and not negative; `within` on every rule; `after` never longer than `within`
/// for any event date; `retain[].for` and `retain[].basis` present; no category both erased and retained.
public enum PolicyValidator {
    static let topLevelKeys = ["id", "version", "jurisdiction", "timezone", "rules", "retain", "extension"]
    static let extensionKeys = ["further", "noticeWithin", "basis"]
    static let ruleKeys = ["on", "erase", "after", "within", "basis", "cancelIfRelinked"]
    static let retainKeys = ["category", "for", "basis", "separate"]

    /// Validates the bytes of one policy file; `file` is the path as the operator wrote it, used in messages.
    public static func validate(_ bytes: [UInt8], file: String) throws(PolicyValidationFailure) -> ErasurePolicy {
        var check = Check(file: file)
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw PolicyValidationFailure(errors: [
                PolicyValidationError(
                    code: .malformedJSON, file: file, path: "(root)", problem: "the file is not valid JSON",
                    fix: "check brackets, quotes and commas (a JSON linter shows the line)")
            ])
        }
        guard case .object(let fields) = root else {
            check.fail(.wrongType, "(root)", "the document is \(root.kindName)", "write one JSON object { … }")
            throw PolicyValidationFailure(errors: check.errors)
        }
        check.unknownKeys(fields, allowed: topLevelKeys, at: "")

        let id = check.string(fields, "id", at: "", required: true, nonEmpty: true)
        let jurisdiction = check.string(fields, "jurisdiction", at: "", required: true, nonEmpty: true)
        var version = 0
        switch fields["version"] {
        case .integer(let value) where value >= 1 && value <= Int64(Int32.max): version = Int(value)
        case nil: check.fail(.missingField, "version", "\"version\" is missing", "add \"version\": 1")
        case .some(let other):
            check.fail(
                .invalidVersion, "version", "\"version\" must be a whole number ≥ 1, found \(other.kindName)",
                "write a whole number such as \"version\": 1 and raise it on every change")
        }

        let zoneName = check.string(fields, "timezone", at: "", required: true, nonEmpty: true)
        var calculator = DeadlineCalculator(timeZone: TimeZone(secondsFromGMT: 0)!)
        if let zoneName {
            if let zone = DeadlineCalculator(timeZoneIdentifier: zoneName) {
                calculator = zone
            } else {
                check.fail(
                    .unknownTimeZone, "timezone", "unknown time zone \"\(zoneName)\"",
                    "use an IANA zone name such as \"Asia/Seoul\", \"Europe/Berlin\" or \"UTC\"")
            }
        }

        var rules: [ErasureRule] = []
        if let items = check.array(fields, "rules", at: "", required: true) {
            if items.isEmpty {
                check.fail(
                    .emptyList, "rules", "\"rules\" is empty", "add at least one rule for account-deleted")
            }
            for (index, item) in items.enumerated() {
                if let rule = check.rule(item, at: "rules[\(index)]", calculator: calculator) { rules.append(rule) }
            }
        }

        var retain: [RetentionRule] = []
        if let items = check.array(fields, "retain", at: "", required: false) {
            for (index, item) in items.enumerated() {
                if let entry = check.retention(item, at: "retain[\(index)]") { retain.append(entry) }
            }
        }
        for (index, entry) in retain.enumerated() {
            if let ruleIndex = rules.firstIndex(where: { $0.erase.contains(entry.category) }) {
                check.fail(
                    .erasedAndRetained, "retain[\(index)].category",
                    "\"\(entry.category.rawValue)\" is retained for \(entry.period) but rules[\(ruleIndex)] erases it",
                    "remove it from rules[\(ruleIndex)].erase, or from retain")
            }
        }

        var extensionTerms: ExtensionTerms? = nil
        switch fields["extension"] {
        case nil: break
        case .object(let members):
            check.unknownKeys(members, allowed: extensionKeys, at: "extension")
            let further = check.duration(members, "further", at: "extension")
            let notice = check.duration(members, "noticeWithin", at: "extension")
            let basis = check.string(members, "basis", at: "extension", required: true, nonEmpty: true)
            for key in ["further", "noticeWithin"] where members[key] == nil {
                check.fail(
                    .missingField, "extension.\(key)", "\"\(key)\" is missing",
                    "add \"\(key)\" as an ISO 8601 duration, e.g. \"P2M\" (GDPR) or \"P45D\" (CCPA)")
            }
            if let further, let notice, let basis {
                extensionTerms = ExtensionTerms(further: further, noticeWithin: notice, basis: basis)
            }
        case .some(let other):
            check.fail(
                .wrongType, "extension", "\"extension\" must be an object, found \(other.kindName)",
                "write { \"further\": \"P2M\", \"noticeWithin\": \"P1M\", \"basis\": \"…\" }")
        }

        guard check.errors.isEmpty, let id, let jurisdiction, let zoneName else {
            throw PolicyValidationFailure(errors: check.errors)
        }
        var policy = ErasurePolicy(
            id: id, version: version, jurisdiction: jurisdiction, timeZoneIdentifier: zoneName, rules: rules,
            retain: retain, canonicalBytes: bytes)
        policy.extensionTerms = extensionTerms
        return policy
    }
}

/// The running state of one validation: the file name and the errors so far.
private struct Check {
    let file: String
    var errors: [PolicyValidationError] = []

    mutating func fail(_ code: PolicyValidationError.Code, _ path: String, _ problem: String, _ fix: String) {
        errors.append(PolicyValidationError(code: code, file: file, path: path, problem: problem, fix: fix))
    }

    func join(_ parent: String, _ key: String) -> String { parent.isEmpty ? key : "\(parent).\(key)" }

    mutating func unknownKeys(_ fields: JSONObject, allowed: [String], at parent: String) {
        for key in fields.keys.sorted() where !allowed.contains(key) {
            fail(
                .unknownKey, join(parent, key), "unknown key \"\(key)\"",
                suggestion(for: key, among: allowed, noun: "key"))
        }
    }

    mutating func string(
        _ fields: JSONObject, _ key: String, at parent: String, required: Bool, nonEmpty: Bool
    ) -> String? {
        let path = join(parent, key)
        switch fields[key] {
        case .string(let value) where !nonEmpty || !value.isEmpty: return value
        case nil where !required: return nil
        case nil: fail(.missingField, path, "\"\(key)\" is missing", "add \"\(key)\": \"…\"")
        case .some(let other):
            fail(
                .wrongType, path, "\"\(key)\" must be a non-empty string, found \(other.kindName)", "write it as \"…\"")
        }
        return nil
    }

    mutating func array(_ fields: JSONObject, _ key: String, at parent: String, required: Bool)
        -> [JSONValue]?
    {
        let path = join(parent, key)
        switch fields[key] {
        case .array(let items): return items
        case nil where !required: return nil
        case nil: fail(.missingField, path, "\"\(key)\" is missing", "add \"\(key)\": [ … ]")
        case .some(let other):
            fail(.wrongType, path, "\"\(key)\" must be an array, found \(other.kindName)", "write it as [ … ]")
        }
        return nil
    }

    mutating func bool(_ fields: JSONObject, _ key: String, at parent: String) -> Bool {
        switch fields[key] {
        case .bool(let value): return value
        case nil: return false
        case .some(let other):
            fail(
                .wrongType, join(parent, key), "\"\(key)\" must be true or false, found \(other.kindName)",
                "write true or false without quotes")
            return false
        }
    }

    mutating func duration(_ fields: JSONObject, _ key: String, at parent: String) -> ISODuration? {
        let path = join(parent, key)
        guard let value = fields[key] else { return nil }
        guard case .string(let text) = value else {
            fail(
                .wrongType, path, "\"\(key)\" must be an ISO 8601 duration string, found \(value.kindName)",
                "write it as a string such as \"P5D\"")
            return nil
        }
        do {
            return try ISODuration.parse(text)
        } catch {
            switch error {
            case .negative:
                fail(
                    .negativeDuration, path, "\"\(text)\" is negative",
                    "durations count forward from the event: remove the minus sign")
            case .malformed:
                fail(
                    .malformedDuration, path, "\"\(text)\" is not an ISO 8601 duration",
                    "write P#Y#M#W#DT#H#M#S with whole numbers, e.g. \"P5D\", \"P1M\", \"P45D\", \"PT12H\"")
            }
        }
        return nil
    }

    mutating func names<Name: RawRepresentable & CaseIterable>(
        _ fields: JSONObject, _ key: String, at parent: String, as _: Name.Type,
        code: PolicyValidationError.Code, noun: String
    ) -> [Name]? where Name.RawValue == String {
        guard let items = array(fields, key, at: parent, required: true) else { return nil }
        let known = Name.allCases.map(\.rawValue)
        if items.isEmpty {
            fail(
                .emptyList, join(parent, key), "\"\(key)\" is empty",
                "list at least one of: \(known.joined(separator: ", "))")
        }
        var names: [Name] = []
        for (index, item) in items.enumerated() {
            let path = "\(join(parent, key))[\(index)]"
            guard case .string(let text) = item else {
                fail(.wrongType, path, "must be a string, found \(item.kindName)", "write a \(noun) name in quotes")
                continue
            }
            if let name = Name(rawValue: text) {
                names.append(name)
            } else {
                fail(code, path, "unknown \(noun) \"\(text)\"", suggestion(for: text, among: known, noun: noun))
            }
        }
        return names
    }

    mutating func rule(_ value: JSONValue, at path: String, calculator: DeadlineCalculator) -> ErasureRule? {
        guard case .object(let fields) = value else {
            fail(
                .wrongType, path, "a rule must be an object, found \(value.kindName)",
                "write { \"on\": …, \"erase\": …, \"within\": … }")
            return nil
        }
        let before = errors.count
        unknownKeys(fields, allowed: PolicyValidator.ruleKeys, at: path)
        let on = names(fields, "on", at: path, as: PolicyTrigger.self, code: .unknownTrigger, noun: "trigger")
        let erase = names(fields, "erase", at: path, as: DataCategory.self, code: .unknownCategory, noun: "category")
        let after = duration(fields, "after", at: path) ?? .zero
        let within = duration(fields, "within", at: path)
        if fields["within"] == nil {
            fail(
                .missingWithin, "\(path).within", "the rule has no deadline",
                "add \"within\" with the legal deadline from the event, e.g. \"within\": \"P5D\"")
        }
        let basis = string(fields, "basis", at: path, required: false, nonEmpty: true)
        let cancelIfRelinked = bool(fields, "cancelIfRelinked", at: path)
        if let within, let anchor = firstDateWhere(after, exceeds: within, calculator: calculator) {
            fail(
                .afterExceedsWithin, "\(path).after",
                "\"after\" (\(after)) ends later than \"within\" (\(within)) for an event on \(anchor)",
                "make \"after\" shorter than \"within\" (both count from the event), or raise \"within\"")
        }
        guard errors.count == before, let on, let erase, let within else { return nil }
        return ErasureRule(
            on: on, erase: erase, after: after, within: within, basis: basis, cancelIfRelinked: cancelIfRelinked)
    }

    mutating func retention(_ value: JSONValue, at path: String) -> RetentionRule? {
        guard case .object(let fields) = value else {
            fail(
                .wrongType, path, "a retention must be an object, found \(value.kindName)",
                "write { \"category\": …, \"for\": …, \"basis\": … }")
            return nil
        }
        let before = errors.count
        unknownKeys(fields, allowed: PolicyValidator.retainKeys, at: path)
        var category: DataCategory?
        switch fields["category"] {
        case .string(let text):
            category = DataCategory(rawValue: text)
            if category == nil {
                fail(
                    .unknownCategory, "\(path).category", "unknown category \"\(text)\"",
                    suggestion(for: text, among: DataCategory.canonicalNames, noun: "category"))
            }
        case nil:
            fail(
                .missingField, "\(path).category", "\"category\" is missing",
                "add \"category\": \"payment-records\" or another category")
        case .some(let other):
            fail(
                .wrongType, "\(path).category", "\"category\" must be a string, found \(other.kindName)",
                "write a category name in quotes")
        }
        let period = duration(fields, "for", at: path)
        if fields["for"] == nil {
            fail(
                .missingField, "\(path).for", "the retention has no period",
                "add \"for\" with the period the law requires, e.g. \"for\": \"P5Y\"")
        }
        let basis = string(fields, "basis", at: path, required: true, nonEmpty: true)
        let separate = bool(fields, "separate", at: path)
        guard errors.count == before, let category, let period, let basis else { return nil }
        return RetentionRule(category: category, period: period, basis: basis, separate: separate)
    }

    /// The first event date (every day of a common and a leap year, noon UTC) on which `after` ends later
    /// than `within`, as `yyyy-MM-dd`; nil when it never does. Months and days compare differently on
    /// different dates (from Jan 31, P30D ends after P1M), so the check walks the calendar.
    func firstDateWhere(_ after: ISODuration, exceeds within: ISODuration, calculator: DeadlineCalculator) -> String? {
        // Adding more of every unit never ends earlier (years and months clamp to the month's end, days keep
        // the wall-clock time, the rest is elapsed time), so a period that is nowhere longer than the
        // deadline cannot end after it on any date: no need to walk 731 days of calendar arithmetic.
        if after.years <= within.years, after.months <= within.months,
            after.weeks * 7 + after.days <= within.weeks * 7 + within.days, after.hours <= within.hours,
            after.minutes <= within.minutes, after.seconds <= within.seconds
        {
            return nil
        }
        let firstDay = ISO8601Format.daysFromCivil(year: 2023, month: 1, day: 1)
        let lastDay = ISO8601Format.daysFromCivil(year: 2024, month: 12, day: 31)
        let noon: Int64 = 12 * 3_600_000
        for day in firstDay...lastDay {
            let event = Instant(millisecondsSinceEpoch: day * 86_400_000 + noon)
            if calculator.instant(after, after: event) > calculator.instant(within, after: event) {
                return String(event.iso8601.prefix(10))
            }
        }
        return nil
    }

    /// "use one of: a, b, c" with the nearest name first when one is close (edit distance ≤ 2).
    func suggestion(for text: String, among known: [String], noun: String) -> String {
        let list = "use one of: \(known.joined(separator: ", "))"
        let nearest = known.map { ($0, editDistance(text, $0)) }.min { $0.1 < $1.1 }
        if let nearest, nearest.1 <= 2 { return "did you mean \"\(nearest.0)\"? (\(list))" }
        return list
    }

    func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
