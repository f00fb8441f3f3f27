import Foundation
import LifecycleCore
import Testing

@testable import LifecycleCLI
@testable import LifecycleDevTools

/// `lifecycle bench reconcile`: the numbers in the README come from it, so its data must be reproducible and
/// its check must hold (every planted discrepancy found by the real reconciler, nothing else).
@Suite("Reconcile benchmark")
struct ReconcileBenchmarkTests {
    @Test("a small run finds exactly the planted discrepancies and exits 0")
    func smallRun() async throws {
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["bench", "reconcile", "--accounts", "3000", "--json"], io: captured.io)
        #expect(status == 0, "\(captured.errors())")
        let report = try #require(JSONValue.parseIfValid(Data(captured.output().utf8))?.objectValue)
        #expect(report["matches"] == .bool(true))
        #expect(report["accountsRead"] == .integer(3000))
        #expect(report["expectedFindings"] == report["foundFindings"])
        let expected = try #require(report["expectedFindings"]?.objectValue)
        #expect(expected["notification-gap"] == .integer(1))
        #expect((report["peakResidentKiB"]?.integerValue ?? 0) > 0)
    }

    @Test("the same seed gives the same population; another seed gives another")
    func reproducible() {
        let asOf = ReconcileBenchmark.asOf
        let first = ReconcileBenchmarkPopulation(count: 5000, seed: 7, asOf: asOf)
        let again = ReconcileBenchmarkPopulation(count: 5000, seed: 7, asOf: asOf)
        let other = ReconcileBenchmarkPopulation(count: 5000, seed: 8, asOf: asOf)
        for index in [0, 1, 2500, 4999] {
            #expect(first.account(index).subject == again.account(index).subject)
            #expect(first.account(index).record == again.account(index).record)
            #expect(first.account(index).appRow == again.account(index).appRow)
            #expect(first.account(index).subject != other.account(index).subject)
        }
    }

    @Test("subjects sort in index order, and the app's sign-up order visits every account once")
    func orders() {
        let population = ReconcileBenchmarkPopulation(count: 2000, seed: 1, asOf: ReconcileBenchmark.asOf)
        let subjects = (0..<population.count).map { population.subject($0) }
        #expect(subjects == subjects.sorted { SubjectOrder.precedes($0, $1) })
        #expect(ReconcileBenchmarkPopulation.index(ofSubject: subjects[1234]) == 1234)
        let visited = Set((0..<population.count).map(population.signupOrder))
        #expect(visited.count == population.count)
        #expect((0..<10).map(population.signupOrder) != Array(0..<10))
    }

    @Test("the mix is realistic: mostly linked, a few per thousand planted discrepancies")
    func mix() {
        let population = ReconcileBenchmarkPopulation(count: 100_000, seed: 1, asOf: ReconcileBenchmark.asOf)
        var linked = 0
        var planted = 0
        for index in 0..<population.count {
            let account = population.account(index)
            if account.kind == .linked { linked += 1 }
            planted += account.expected.count
        }
        #expect((83_000...87_000).contains(linked))
        #expect((200...800).contains(planted))
    }

    @Test("options of the other benchmark are refused with one line", arguments: ["--connections", "--duration"])
    func foreignOption(option: String) async {
        let captured = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["bench", "reconcile", option, "4"], io: captured.io)
        #expect(status == 2)
        #expect(captured.errors().contains("\(option) is not an option of 'lifecycle bench reconcile'"))
    }
}
