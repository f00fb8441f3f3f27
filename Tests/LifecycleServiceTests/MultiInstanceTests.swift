import AppleNotifications
import Dispatch
import Foundation
import LifecycleCore
import LifecycleDevTools
import LifecycleSQL
import Synchronization
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleStore

/// Several `serve` processes on one PostgreSQL database behind a load balancer (issue 9): whatever instance a
/// notification reaches, and however often, it is stored once and acted on once; an instance killed with
/// `kill -9` loses nothing it acknowledged, and the survivor takes over its leases.
@Suite("Several serve instances on one PostgreSQL", .serialized)
struct MultiInstanceTests {
    /// Apple's notifications sent in one run. Every one ends the account's sessions (one
    /// `account.sessions.terminate` webhook each); one in ``deletionEvery`` is an `account-delete`, whose
    /// erasure job has one `app-db` step, the rest `consent-revoked`.
    static let notificationCount = 10_000
    /// A step is a claim, an app-database transaction and a record, one at a time per instance (about 20 a
    /// second here); one deletion in 20 keeps the 500 steps within the test's time.
    static let deletionEvery = 20
    /// Every tenth notification, offset by 5, is sent to both instances at once.
    static func isDuplicated(_ index: Int) -> Bool { index % 10 == 5 }
    static func isDeletion(_ index: Int) -> Bool { index % deletionEvery == 0 }
    /// Concurrent senders of the round-robin client.
    static let senders = 12
    /// Outbox messages one instance delivers at once: the most a `kill -9` can leave delivered but not
    /// recorded, hence the most redeliveries the receiver may see.
    static let outboxConcurrency = 16

    @Test(
        "two instances on one PostgreSQL: 10,000 notifications, duplicates to both, one instance killed with kill -9 — one event and one transition per notification, every webhook and erasure step done once, none lost",
        .enabled(if: HarnessStore.postgresServer != nil, "needs LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh)")
    )
    func twoInstancesOneDatabase() async throws {
        let server = try #require(HarnessStore.postgresServer)
        let database = try await PostgresTestDatabase.create(serverURL: server)
        do {
            try await run(on: database)
            await database.drop()
        } catch {
            await database.drop()
            throw error
        }
    }

    private func run(on database: PostgresTestDatabase) async throws {
        let directory = try TemporaryDirectory()
        let receiver = try WebhookReceiver()
        let ports = [try await WebhookReceiver.unusedPort(), try await WebhookReceiver.unusedPort()]
        let files = try Self.writeConfigurations(
            directory: directory, databaseURL: database.url, webhookURL: receiver.url, ports: ports)

        let started = ContinuousClock.now
        let bodies = try Self.signBodies(count: Self.notificationCount)
        let signing = ContinuousClock.now - started

        // The first instance migrates; the second finds the schema current.
        let survivor = try LifecycleProcess.serve(configurationFile: files[0])
        try await LifecycleProcess.waitUntilReady(port: ports[0])
        let victim = try LifecycleProcess.serve(configurationFile: files[1])
        try await LifecycleProcess.waitUntilReady(port: ports[1])

        let client = RoundRobinClient(ports: ports)
        let sending = ContinuousClock.now
        async let outcome = client.run(
            bodies: bodies.map(\.body), workers: Self.senders, duplicate: { Self.isDuplicated($0) })
        while client.acknowledgedCount < Self.notificationCount * 4 / 10 {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Killed while it holds the lease of an erasure step it is running, so there is work to take over.
        // The test holds the app database's write lock meanwhile, so every step that starts waits in its busy
        // timeout holding its lease: catching one does not depend on how the cores are shared. The instance is
        // frozen (SIGSTOP) before the lease is read, so a step it holds cannot finish between the read and the
        // kill; when it holds none, it is thawed and looked at again a moment later.
        let appLock = try AppDatabaseWriteLock(path: files[2], busyTimeoutMilliseconds: 30_000)
        let victimOwner = "%:\(victim.process.processIdentifier):%"
        let holding = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < holding {
            victim.kill(signal: SIGSTOP)
            let held = try await database.withConnection { connection throws(PostgresError) in
                try connection.queryInt64(
                    "SELECT count(*) FROM erasure_steps WHERE status = 'running' AND lease_owner LIKE $1", [victimOwner]
                )
            }
            if (held ?? 0) > 0 { break }
            victim.kill(signal: SIGCONT)
            try await Task.sleep(for: .milliseconds(5))
        }
        victim.kill(signal: SIGKILL)
        _ = await victim.waitForExit()
        try appLock.release()
        let killed = ContinuousClock.now
        // What the killed instance had claimed and not finished: the survivor must finish it.
        let orphans = try await database.withConnection { connection throws(PostgresError) in
            (
                steps: try connection.query(
                    "SELECT job_id, ordinal FROM erasure_steps WHERE status = 'running' AND lease_owner LIKE $1",
                    [victimOwner]
                ).map { [$0.int64(0), $0.int64(1)] },
                messages: try connection.query(
                    "SELECT id FROM outbox WHERE status = 'pending' AND lease_owner LIKE $1", [victimOwner]
                ).map { $0.int64(0) }
            )
        }
        #expect(!orphans.steps.isEmpty, "the instance was killed holding an erasure step's lease")
        let result = await outcome
        let sent = ContinuousClock.now - sending

        // Everything was acknowledged: the balancer moved the killed instance's share to the survivor.
        let acknowledged = result.acknowledged.indices.filter { result.acknowledged[$0] }
        #expect(acknowledged.count == Self.notificationCount)

        // The survivor finishes every delivery and every due erasure step, including those the killed
        // instance had leased.
        let deletions = (0..<Self.notificationCount).filter(Self.isDeletion).count
        let giveUp = ContinuousClock.now + .seconds(90)
        var unfinished: (outbox: Int64, steps: Int64) = (-1, -1)
        var outboxDrained: Duration?
        while ContinuousClock.now < giveUp {
            let now = SystemClock().now().millisecondsSinceEpoch
            unfinished = try await database.withConnection { connection throws(PostgresError) in
                (
                    try connection.queryInt64("SELECT count(*) FROM outbox WHERE status <> 'delivered'") ?? -1,
                    try connection.queryInt64(
                        """
                        SELECT count(*) FROM erasure_steps s JOIN erasure_jobs j ON j.id = s.job_id
                        WHERE j.not_before_ms <= $1 AND s.status <> 'done'
                        """, [now]) ?? -1
                )
            }
            if unfinished.outbox == 0, outboxDrained == nil { outboxDrained = ContinuousClock.now - sending }
            if unfinished == (0, 0) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let finished = ContinuousClock.now - sending
        #expect(unfinished.outbox == 0, "every outbox message delivered")
        #expect(unfinished.steps == 0, "every due erasure step done")
        let takenOver = try await database.withConnection { connection throws(PostgresError) in
            var done = (steps: 0, messages: 0)
            for key in orphans.steps {
                done.steps += Int(
                    try connection.queryInt64(
                        "SELECT count(*) FROM erasure_steps WHERE job_id = $1 AND ordinal = $2 AND status = 'done'",
                        [key[0], key[1]]) ?? 0)
            }
            for id in orphans.messages {
                done.messages += Int(
                    try connection.queryInt64(
                        "SELECT count(*) FROM outbox WHERE id = $1 AND status = 'delivered'", [id])
                        ?? 0)
            }
            return done
        }
        #expect(takenOver.steps == orphans.steps.count, "the survivor finished the killed instance's steps")
        #expect(takenOver.messages == orphans.messages.count, "the survivor delivered the killed instance's messages")

        // One stored event per notification, every acknowledged one among them; one transition each.
        let stored = try await database.withConnection { connection throws(PostgresError) in
            Set(try connection.query("SELECT jti FROM notifications").map { $0.text(0) })
        }
        #expect(stored.count == Self.notificationCount)
        #expect(acknowledged.allSatisfy { stored.contains(bodies[$0].jti) }, "every acknowledged notification stored")
        let transitions = try await database.withConnection { connection throws(PostgresError) in
            try connection.query(
                """
                SELECT count(*), count(DISTINCT notification_id), count(*) FILTER (WHERE disposition = 'applied')
                FROM account_history WHERE notification_id IS NOT NULL
                """
            ).first.map { [$0.int(0), $0.int(1), $0.int(2)] } ?? []
        }
        #expect(transitions == Array(repeating: Self.notificationCount, count: 3))

        // One outbox message per effect, each delivered: every id arrived (at least once, de-duplicated by
        // webhook-id), never more often than the service attempted it, and more than once without a recorded
        // failed attempt only when the killed instance had sent it without recording the result. A failed
        // attempt (a receiver slower than the timeout on a loaded machine) is recorded and retried: at least
        // once, by design.
        let outbox = try await database.withConnection { connection throws(PostgresError) in
            try connection.query("SELECT message_id, kind, attempts, last_error IS NOT NULL FROM outbox").map {
                (id: $0.text(0), kind: $0.text(1), attempts: $0.int(2), failedOnce: $0.text(3) == "t")
            }
        }
        #expect(outbox.count == Self.notificationCount)
        #expect(outbox.allSatisfy { $0.kind == "account.sessions.terminate" })
        let deliveries = receiver.received.map(\.id)
        var deliveryCounts: [String: Int] = [:]
        for id in deliveries { deliveryCounts[id, default: 0] += 1 }
        #expect(Set(deliveryCounts.keys) == Set(outbox.map(\.id)))
        let overAttempted = outbox.filter { (deliveryCounts[$0.id] ?? 0) > $0.attempts }
        #expect(overAttempted.isEmpty, "no message arrives more often than it was attempted")
        let redeliveries = deliveries.count - deliveryCounts.count
        let unexplained = outbox.filter { !$0.failedOnce && (deliveryCounts[$0.id] ?? 0) > 1 }.count
        let retried = outbox.filter(\.failedOnce).count
        #expect(unexplained <= Self.outboxConcurrency, "only messages in flight at the kill come twice unrecorded")

        // One execution per erasure step: the app database's audit table has one row per deleted subject
        // (a second only for the one step the killed instance may have run without recording it).
        let dueJobs = try await database.withConnection { connection throws(PostgresError) in
            try connection.queryInt64(
                "SELECT count(*) FROM erasure_jobs WHERE not_before_ms <= $1",
                [SystemClock().now().millisecondsSinceEpoch]) ?? -1
        }
        #expect(dueJobs == Int64(deletions))
        let app = try ExternalSQLiteDatabase(path: files[2], busyTimeoutMilliseconds: 5_000)
        let executions = try app.queryInteger("SELECT count(*) FROM executions", parameters: [:]) ?? -1
        let executedSubjects =
            try app.queryInteger("SELECT count(DISTINCT apple_sub) FROM executions", parameters: [:]) ?? -1
        app.close()
        #expect(executedSubjects == Int64(deletions))
        #expect(executions - executedSubjects <= 1, "only a step in flight at the kill runs twice")

        print(
            """
            two instances on PostgreSQL: \(Self.notificationCount) notifications (+\(result.duplicateAcknowledgements) \
            duplicates acknowledged) signed in \(signing), acknowledged in \(sent), instance killed after \(killed - sending), \
            webhooks all delivered after \(outboxDrained ?? .zero), all work done after \(finished); \
            \(result.failovers) failovers, \(orphans.steps.count) steps and \(orphans.messages.count) messages \
            taken over from the killed instance, \(redeliveries) \
            webhook redeliveries (\(unexplained) messages in flight at the kill, \(retried) retried after a recorded \
            failure), \(executions - executedSubjects) repeated erasure steps
            """)

        survivor.kill(signal: SIGTERM)
        #expect(await survivor.waitForExit() == 0)
        await receiver.stop()
    }

    /// Both instances' configuration files (differing only in the public port) and the app database path.
    static func writeConfigurations(
        directory: TemporaryDirectory, databaseURL: String, webhookURL: String, ports: [Int]
    ) throws -> [String] {
        try Data(TestTokenFactory().jwks.encoded()).write(to: URL(fileURLWithPath: directory.file("jwks.json")))
        try Data(ServiceHarness.webhookSecret.utf8).write(to: URL(fileURLWithPath: directory.file("webhook-secret")))
        try FileManager.default.createDirectory(atPath: directory.file("policies"), withIntermediateDirectories: true)
        try Data(policy.utf8).write(to: URL(fileURLWithPath: directory.file("policies/multi-instance.json")))
        let appDatabase = directory.file("app.sqlite")
        let database = try ExternalSQLiteDatabase(path: appDatabase, busyTimeoutMilliseconds: 1000, create: true)
        _ = try database.executeInTransaction(
            [
                "CREATE TABLE users (apple_sub TEXT NOT NULL)",
                "CREATE TABLE executions (apple_sub TEXT NOT NULL)",
            ], parameters: [:])
        database.close()

        var categories: JSONObject = [:]
        for category in ["profile", "content"] { categories[category] = ["app-db"] }
        let app: JSONValue = [
            "id": .string(ServiceHarness.appID), "clientIds": [.string(ServiceHarness.clientID)],
            "policy": "multi-instance", "webhook": ["url": .string(webhookURL), "secretFile": "webhook-secret"],
            "targets": [
                "app-db": [
                    "type": "sqlite", "path": "app.sqlite",
                    "statements": [
                        "INSERT INTO executions VALUES (:sub)", "DELETE FROM users WHERE apple_sub = :sub",
                    ],
                    "verify": "SELECT count(*) FROM users WHERE apple_sub = :sub",
                ]
            ],
            "categories": .object(categories),
        ]
        var files: [String] = []
        for (index, port) in ports.enumerated() {
            let configuration: JSONValue = [
                "storage": ["url": .string(databaseURL)],
                "public": ["host": "127.0.0.1", "port": .integer(Int64(port))],
                "admin": ["enabled": false], "apple": ["jwks": "jwks.json"], "apps": [app],
                "policiesDirectory": "policies", "pseudonymKeyFile": "secrets/pseudonym.key", "logLevel": "error",
                // Leases twice the webhook timeout, so no lease ends under an attempt still running on a loaded
                // machine (which would make a second instance send it too), and short enough that the survivor
                // takes over the killed instance's work within the test; one step per claim, so a lease covers
                // one step's run and not a queue of them.
                "erasure": [
                    "maxAttempts": 20, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 200,
                    "pollMilliseconds": 100, "leaseSeconds": 10, "batchSize": 1, "runInServe": true,
                    "busyTimeoutMilliseconds": 5_000,
                ],
                "outbox": [
                    "maxAttempts": 50, "baseDelayMilliseconds": 50, "maxDelayMilliseconds": 500,
                    "pollMilliseconds": 100, "timeoutMilliseconds": 5_000, "leaseSeconds": 10,
                    "concurrency": .integer(Int64(outboxConcurrency)),
                ],
            ]
            let file = directory.file("lifecycle-\(index).json")
            try Data(configuration.serialized(pretty: true).utf8).write(to: URL(fileURLWithPath: file))
            files.append(file)
        }
        return files + [appDatabase]
    }

    /// Deletion erases the app's rows at once; revoked consent erases nothing, so every due erasure step is a
    /// deletion's `app-db` step.
    static let policy = """
        {
          "id": "multi-instance", "version": 1, "jurisdiction": "EU", "timezone": "UTC",
          "rules": [
            {"on": ["account-deleted"], "erase": ["profile", "content"], "within": "P1M", "basis": "test"}
          ]
        }
        """

    /// Signed by the test key on every core at once: RSA signing, not the service, would dominate otherwise.
    static func signBodies(count: Int) throws -> [(jti: String, body: [UInt8])] {
        let signer = NotificationSigner(privateKey: TestKeys.rsa2048, keyID: TestKeys.keyID)
        let now = SystemClock().now()
        let slots = Mutex<[(jti: String, body: [UInt8])?]>(Array(repeating: nil, count: count))
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let jti = NotificationSigner.makeJTI()
            let event = AppleEvent(
                type: AppleEventType(wireValue: isDeletion(index) ? "account-delete" : "consent-revoked"),
                subject: "000\(index).0123456789abcdef0123456789abcdef.0101",
                eventTime: now.adding(milliseconds: -Int64(count - index)))
            do {
                let jws = try signer.sign(event: event, audience: ServiceHarness.clientID, issuedAt: now, jti: jti)
                slots.withLock { $0[index] = (jti, NotificationBody.encode(jws: jws)) }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return slots.withLock { $0.compactMap { $0 } }
    }
}
