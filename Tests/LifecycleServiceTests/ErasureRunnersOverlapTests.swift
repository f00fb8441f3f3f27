import Foundation
import LifecycleCore
import LifecycleSQL
import Testing

/// `lifecycle jobs run --once` from cron beside `serve`'s own runner (README, "Erasure policies and jobs":
/// leases keep concurrent runners apart, so cron and serve may overlap): three processes on one store, every
/// step run once. Observed from outside: the app database each step writes to, the admin API, exit statuses.
@Suite("Erasure runners in several processes")
struct ErasureRunnersOverlapTests {
    static let subjects = (0..<30).map { String(format: "000%03d.overlap.0001", $0) }

    @Test("serve and two jobs run --once processes started together on 30 due jobs: each step runs exactly once")
    func serveAndCronOverlap() async throws {
        // Each execution of the app-db step leaves a row, so a step run twice shows.
        let target: JSONObject = [
            "app-db": [
                "type": "sqlite", "path": "app.sqlite",
                "statements": [
                    "INSERT INTO executions (apple_sub) VALUES (:sub)", "DELETE FROM users WHERE apple_sub = :sub",
                ],
                "verify": "SELECT count(*) FROM users WHERE apple_sub = :sub",
            ]
        ]
        var app = ServeFixture.app(erasureTargets: target).objectValue ?? [:]
        app["policy"] = "delayed"
        let fixture = try await ServeFixture(
            apps: [.object(app)],
            extra: [
                "erasure": [
                    "runInServe": true, "pollMilliseconds": 50, "baseDelayMilliseconds": 50,
                    "maxDelayMilliseconds": 100, "leaseSeconds": 60,
                ]
            ])
        // Due a day after the deletion: nothing runs until the processes below, whose clocks are two days on.
        try fixture.writePolicy(
            """
            {
              "id": "delayed", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
              "rules": [
                {"on": ["account-deleted"], "erase": ["profile", "content"], "after": "P1D", "within": "P1M",
                 "basis": "test"}
              ]
            }
            """, name: "delayed.json")
        try fixture.createAppDatabase("app.sqlite", subjects: Self.subjects)
        try await fixture.start()
        for subject in Self.subjects {
            #expect(
                try await fixture.post(fixture.notification(type: "account-delete", subject: subject)).status == 200)
        }
        #expect(await fixture.stop() == [0])
        #expect(try Self.executions(fixture).isEmpty, "not due yet")

        let later = ["LIFECYCLE_CLOCK_OFFSET_SECONDS": String(fixture.clockOffsetSeconds + 2 * 86_400)]
        let arguments = ["jobs", "run", "--once", "--config", fixture.configurationFile]
        async let first = fixture.lifecycle(arguments, environment: later)
        async let second = fixture.lifecycle(arguments, environment: later)
        try await fixture.start(environment: later)
        let runs = try await [first, second]
        for run in runs { #expect(run.status == 0, "\(run)") }

        let completed = await eventually(timeout: .seconds(60)) {
            let jobs = try? await fixture.admin("GET", "/v1/jobs?status=completed")
            return jobs?.json?["jobs"]?.arrayValue?.count == Self.subjects.count
        }
        #expect(completed, "every job completed")
        let executions = try Self.executions(fixture)
        #expect(executions.count == Self.subjects.count, "one execution per job: \(executions.count)")
        #expect(Set(executions) == Set(Self.subjects), "each subject's step ran once")
        let byCron = runs.map { $0.output.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(byCron.allSatisfy { $0.hasPrefix("ran ") }, "\(byCron)")
        #expect(await fixture.stop() == [0])
    }

    /// The subjects the app-db step ran for, one entry per execution.
    static func executions(_ fixture: ServeFixture) throws -> [String] {
        let database = try ExternalSQLiteDatabase(
            path: fixture.directory.file("app.sqlite"), busyTimeoutMilliseconds: 1000)
        defer { database.close() }
        var found: [String] = []
        for subject in subjects {
            let count =
                try database.queryInteger(
                    "SELECT count(*) FROM executions WHERE apple_sub = :sub", parameters: ["sub": subject]) ?? 0
            found += Array(repeating: subject, count: Int(count))
        }
        return found
    }
}
