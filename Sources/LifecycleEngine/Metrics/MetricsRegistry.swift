import Synchronization

/// Counters, gauges and histograms rendered in the Prometheus text exposition format (version 0.0.4).
///
/// A family is registered once and used through its typed handle (``Counter``, ``Gauge``, ``Histogram``):
/// there is no way to count under a name nobody registered, so a misspelled name cannot silently start a
/// new family, and a gauge cannot be incremented.
///
/// Label values come only from closed sets the service controls (event types, reason codes, outcomes,
/// app ids), never from request data, so cardinality stays bounded. Unknown Apple event types are counted
/// under `type="unknown"`.
public final class MetricsRegistry: Sendable {
    private struct Family {
        var help: String
        var kind: String
        var samples: [String: Double] = [:]
        var histograms: [String: HistogramState] = [:]
        var buckets: [Double] = []
    }

    private struct HistogramState {
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        mutating func observe(_ value: Double, buckets: [Double]) {
            for (index, bound) in buckets.enumerated() where value <= bound { counts[index] += 1 }
            sum += value
            count += 1
        }
    }

    private let families = Mutex<[String: Family]>([:])
    /// Values read at scrape time (e.g. outbox depth from the store).
    private let collectors = Mutex<[@Sendable () -> [(gauge: Gauge, labels: [(String, String)], value: Double)]]>([])

    public init() {}

    /// Registers a family once and answers a handle for it; registering the same name again answers a handle
    /// for the existing family when the kind, help and buckets agree, and stops the process when they do not
    /// (two meanings for one name is a programming error every test run would hit).
    fileprivate func register(_ name: String, kind: String, help: String, buckets: [Double] = []) {
        precondition(Self.isValidName(name), "metric name \(name) is not a Prometheus name")
        families.withLock { families in
            if let existing = families[name] {
                precondition(
                    existing.kind == kind && existing.help == help && existing.buckets == buckets,
                    "metric \(name) registered twice with different kinds, help or buckets")
                return
            }
            families[name] = Family(help: help, kind: kind, buckets: buckets)
        }
    }

    /// A counter: only goes up (`_total`).
    public func counter(_ name: String, help: String) -> Counter {
        register(name, kind: "counter", help: help)
        return Counter(registry: self, name: name)
    }

    /// A gauge: set to the current value.
    public func gauge(_ name: String, help: String) -> Gauge {
        register(name, kind: "gauge", help: help)
        return Gauge(registry: self, name: name)
    }

    /// A histogram with cumulative `buckets` (upper bounds, ascending; `+Inf` is implied).
    public func histogram(_ name: String, help: String, buckets: [Double]) -> Histogram {
        precondition(zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 }, "buckets of \(name) must ascend")
        register(name, kind: "histogram", help: help, buckets: buckets)
        return Histogram(registry: self, name: name)
    }

    fileprivate func add(_ name: String, _ labels: [(String, String)], _ amount: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in families[name]?.samples[key, default: 0] += amount }
    }

    fileprivate func set(_ name: String, _ labels: [(String, String)], _ value: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in families[name]?.samples[key] = value }
    }

    fileprivate func raise(_ name: String, _ labels: [(String, String)], _ value: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in
            guard families[name] != nil else { return }
            if let current = families[name]?.samples[key], current >= value { return }
            families[name]?.samples[key] = value
        }
    }

    fileprivate func observe(_ name: String, _ labels: [(String, String)], _ value: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in
            // Mutated in place: copying the family out and back copied its every series on each observation.
            guard let buckets = families[name]?.buckets else { return }
            families[name]?.histograms[key, default: HistogramState(counts: Array(repeating: 0, count: buckets.count))]
                .observe(value, buckets: buckets)
        }
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*` (Prometheus data model).
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        }
    }

    /// Registers a closure evaluated at every scrape, for gauges whose truth lives elsewhere.
    public func collect(
        _ collector: @escaping @Sendable () -> [(gauge: Gauge, labels: [(String, String)], value: Double)]
    ) {
        collectors.withLock { $0.append(collector) }
    }

    /// The current value of one sample (tests, `/readyz`).
    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double? {
        let key = Self.labelText(labels)
        return families.withLock { $0[name]?.samples[key] ?? $0[name]?.histograms[key].map { Double($0.count) } }
    }

    public func render() -> String {
        for collector in collectors.withLock({ $0 }) {
            for sample in collector() { sample.gauge.set(sample.labels, to: sample.value) }
        }
        return families.withLock { families in
            var text = ""
            for name in families.keys.sorted() {
                let family = families[name]!
                text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind)\n"
                for key in family.samples.keys.sorted() {
                    text += "\(name)\(key.isEmpty ? "" : "{\(key)}") \(Self.format(family.samples[key]!))\n"
                }
                for key in family.histograms.keys.sorted() {
                    let state = family.histograms[key]!
                    let prefix = key.isEmpty ? "" : key + ","
                    for (index, bound) in family.buckets.enumerated() {
                        text += "\(name)_bucket{\(prefix)le=\"\(Self.format(bound))\"} \(state.counts[index])\n"
                    }
                    text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(state.count)\n"
                    text += "\(name)_sum\(key.isEmpty ? "" : "{\(key)}") \(Self.format(state.sum))\n"
                    text += "\(name)_count\(key.isEmpty ? "" : "{\(key)}") \(state.count)\n"
                }
            }
            return text
        }
    }

    private static func labelText(_ labels: [(String, String)]) -> String {
        labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
    }

    private static func escape(_ value: String) -> String {
        let special: (UInt8) -> Bool = {
            $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n")
        }
        guard value.utf8.contains(where: special) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A registered counter family.
public struct Counter: Sendable {
    fileprivate let registry: MetricsRegistry
    public let name: String

    public func increment(_ labels: [(String, String)] = [], by amount: Double = 1) {
        registry.add(name, labels, amount)
    }
}

/// A registered gauge family.
public struct Gauge: Sendable {
    fileprivate let registry: MetricsRegistry
    public let name: String

    public func set(_ labels: [(String, String)] = [], to value: Double) {
        registry.set(name, labels, value)
    }

    /// Sets the sample to `value` unless it already holds a larger one: a timestamp that only moves forward,
    /// whichever of two concurrent writers finishes last.
    public func raise(_ labels: [(String, String)] = [], to value: Double) {
        registry.raise(name, labels, value)
    }
}

/// A registered histogram family.
public struct Histogram: Sendable {
    fileprivate let registry: MetricsRegistry
    public let name: String

    public func observe(_ labels: [(String, String)] = [], value: Double) {
        registry.observe(name, labels, value)
    }
}
