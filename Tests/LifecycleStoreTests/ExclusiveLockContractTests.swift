import Synchronization
import Testing

@testable import LifecycleStore

/// What every ``Store`` promises about ``Store/withExclusiveLock(named:_:)``: one holder at a time across
/// every store opened on one location (two instances on one database), never waiting, never left taken.
@Suite("Store contract: exclusive locks")
struct ExclusiveLockContractTests {
    @Test(
        "a second instance does not get a lock while the first holds it, and gets it afterwards",
        arguments: StoreFactory.all)
    func oneHolderAtATime(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            let (outer, inner, other) =
                try await first.withExclusiveLock(named: "reconciler") {
                    let inner = try await second.withExclusiveLock(named: "reconciler") { "second ran" }
                    let other = try await second.withExclusiveLock(named: "daily-report") { "other lock ran" }
                    return ("first ran", inner, other)
                } ?? ("first refused", nil, nil)
            let afterwards = try await second.withExclusiveLock(named: "reconciler") { "second ran" }
            await first.close()
            await second.close()
            #expect(outer == "first ran")
            #expect(inner == nil, "refused while the first instance holds the lock")
            #expect(other == "other lock ran", "locks of other names are independent")
            #expect(afterwards == "second ran", "released when the first holder's body returned")
        }
    }

    @Test("a body that throws releases the lock and its error reaches the caller", arguments: StoreFactory.all)
    func releasedOnThrow(factory: StoreFactory) async throws {
        try await withStore(factory) { store, _ in
            await #expect(throws: PlannedFailure(index: 1)) {
                _ = try await store.withExclusiveLock(named: "report") { () throws -> Int in
                    throw PlannedFailure(index: 1)
                }
            }
            let again = try await store.withExclusiveLock(named: "report") { 42 }
            #expect(again == 42)
        }
    }

    @Test("of many concurrent attempts on two instances, bodies never overlap", arguments: StoreFactory.all)
    func concurrentAttemptsNeverOverlap(factory: StoreFactory) async throws {
        try await withStoreLocation(factory) { location in
            let stores = [try await factory.open(location), try await factory.open(location)]
            let meter = OverlapMeter()
            let ran = try await withThrowingTaskGroup(of: Bool.self) { group in
                for attempt in 0..<16 {
                    let store = stores[attempt % 2]
                    group.addTask {
                        try await store.withExclusiveLock(named: "reconciler") {
                            meter.enter()
                            try await Task.sleep(for: .milliseconds(5))
                            meter.leave()
                        } != nil
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            for store in stores { await store.close() }
            #expect(meter.overlaps == 0)
            #expect(ran >= 1)
        }
    }
}

/// Counts bodies running at once: an overlap is an entry while another body is inside.
private final class OverlapMeter: Sendable {
    private let inside = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)

    func enter() {
        if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
            overlapCount.add(1, ordering: .relaxed)
        }
    }

    func leave() {
        inside.subtract(1, ordering: .sequentiallyConsistent)
    }

    var overlaps: Int { overlapCount.load(ordering: .relaxed) }
}
