import Testing

@testable import LifecycleEngine

/// Families are registered once and used through typed handles, so the exposition a scraper reads has one
/// HELP/TYPE per family and no family anybody forgot to register.
@Suite("Metrics registry: typed handles")
struct MetricsRegistryTests {
    @Test("counter, gauge and histogram handles render in the Prometheus text format")
    func rendersHandles() {
        let metrics = MetricsRegistry()
        let requests = metrics.counter("test_requests_total", help: "Requests.")
        let depth = metrics.gauge("test_depth", help: "Depth.")
        let latency = metrics.histogram("test_seconds", help: "Latency.", buckets: [0.1, 1])
        requests.increment([("route", "a")])
        requests.increment([("route", "a")], by: 2)
        depth.set(to: 7)
        latency.observe(value: 0.5)
        let text = metrics.render()
        #expect(text.contains("# TYPE test_requests_total counter\ntest_requests_total{route=\"a\"} 3\n"))
        #expect(text.contains("# TYPE test_depth gauge\ntest_depth 7\n"))
        #expect(text.contains("test_seconds_bucket{le=\"0.1\"} 0\ntest_seconds_bucket{le=\"1\"} 1\n"))
        #expect(text.contains("test_seconds_count 1\n"))
    }

    @Test("registering the same family twice gives handles to one family")
    func sameFamilyTwice() {
        let metrics = MetricsRegistry()
        let first = metrics.counter("test_total", help: "Counted twice.")
        let second = metrics.counter("test_total", help: "Counted twice.")
        first.increment()
        second.increment()
        #expect(metrics.value("test_total") == 2)
        #expect(metrics.render().components(separatedBy: "# TYPE test_total").count == 2)
    }

    @Test(
        "a name is a Prometheus name",
        arguments: [("a_b:c_total", true), ("_x", true), ("9x", false), ("a-b", false), ("", false), ("a b", false)])
    func names(_ name: String, _ valid: Bool) {
        #expect(MetricsRegistry.isValidName(name) == valid)
    }

    @Test("one name registered as two kinds stops the process: two meanings for one series")
    func conflictingKinds() async {
        await #expect(processExitsWith: .failure) {
            let metrics = MetricsRegistry()
            _ = metrics.counter("test_conflict", help: "A counter.")
            _ = metrics.gauge("test_conflict", help: "A counter.")
        }
    }
}
