import Synchronization

/// Counters, gauges and histograms rendered in the Prometheus text exposition format (version 0.0.4).
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
    }

    private let families = Mutex<[String: Family]>([:])
    /// Values read at scrape time (e.g. outbox depth from the store).
    private let collectors = Mutex<[@Sendable () -> [(name: String, labels: [(String, String)], value: Double)]]>([])

    public init() {}

    public func describe(_ name: String, kind: String, help: String, buckets: [Double] = []) {
        families.withLock { families in
            if families[name] == nil { families[name] = Family(help: help, kind: kind, buckets: buckets) }
        }
    }

    public func increment(_ name: String, _ labels: [(String, String)] = [], by amount: Double = 1) {
        let key = Self.labelText(labels)
        families.withLock { families in
            families[name, default: Family(help: name, kind: "counter")].samples[key, default: 0] += amount
        }
    }

    public func set(_ name: String, _ labels: [(String, String)] = [], to value: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in
            families[name, default: Family(help: name, kind: "gauge")].samples[key] = value
        }
    }

    public func observe(_ name: String, _ labels: [(String, String)] = [], value: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in
            guard var family = families[name] else { return }
            var state =
                family.histograms[key] ?? HistogramState(counts: Array(repeating: 0, count: family.buckets.count))
            for (index, bound) in family.buckets.enumerated() where value <= bound { state.counts[index] += 1 }
            state.sum += value
            state.count += 1
            family.histograms[key] = state
            families[name] = family
        }
    }

    /// Registers a closure evaluated at every scrape, for gauges whose truth lives elsewhere.
    public func collect(
        _ collector: @escaping @Sendable () -> [(name: String, labels: [(String, String)], value: Double)]
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
            for sample in collector() { set(sample.name, sample.labels, to: sample.value) }
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
