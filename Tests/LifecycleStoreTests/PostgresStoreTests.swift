import LifecycleCore
import LifecycleSQL
import Testing

@testable import LifecycleStore

/// What only the PostgreSQL store has to show: several instances on one database, reconnection, schema
/// versions, and errors that keep the connection URL's secrets. Skipped without `LIFECYCLE_TEST_POSTGRES_URL`.
@Suite(
    "PostgreSQL store",
    .enabled(if: StoreFactory.postgres != nil, "LIFECYCLE_TEST_POSTGRES_URL is not set"))
struct PostgresStoreTests {
    private var factory: StoreFactory { StoreFactory.postgres! }
    private var url: String { StoreFactory.postgresURL! }

    @Test("two instances claiming at once lease every due message exactly once")
    func twoInstancesClaimOnce() async throws {
        let accounts = 120
        let t0 = Fixtures.receivedAt
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            try await first.write { writer in
                for account in 0..<accounts {
                    try writer.enqueueOutbox(Fixtures.outboxMessage(subject: "sub-\(account)", availableAt: t0))
                }
            }
            // Nobody completes: every lease stays live, so a message claimed twice would be a double lease.
            let claims = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for runner in 0..<8 {
                    let store = runner.isMultiple(of: 2) ? first : second
                    group.addTask {
                        var mine: [Int64] = []
                        while true {
                            let claimed = try await store.write {
                                try $0.claimOutbox(
                                    now: t0, owner: "runner-\(runner)", leaseUntil: t0.adding(seconds: 600), limit: 4)
                            }
                            if claimed.isEmpty { return mine }
                            mine += claimed.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let leased = try await second.read { try $0.outbox(status: .pending, limit: accounts + 1) }
            await first.close()
            await second.close()
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == accounts)
            #expect(Set(claimed).count == accounts, "no message was leased twice")
            #expect(claims.filter { !$0.isEmpty }.count > 1, "the work was shared")
            #expect(leased.allSatisfy { $0.attempts == 1 && $0.leaseOwner != nil })
        }
    }

    @Test("two instances claiming erasure steps at once lease every due step exactly once")
    func twoInstancesClaimErasureStepsOnce() async throws {
        let jobs = 60
        let t0 = Fixtures.receivedAt
        let plan = ErasureJobPlan(
            policyReference: "kr-pipa@1#abc123", trigger: .consentRevoked, eventTime: t0, origin: .rule(index: 0),
            categories: [.profile], targets: ["app-db", "crm"], notBefore: t0,
            deadline: t0.adding(seconds: 86_400), cancelIfRelinked: false, basis: nil)
        try await withStoreLocation(factory) { location in
            let first = try await factory.open(location)
            let second = try await factory.open(location)
            try await first.write { writer in
                for job in 0..<jobs {
                    try writer.insertErasureJob(app: "shop", subject: "sub-\(job)", plan: plan, createdAt: t0)
                }
            }
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for runner in 0..<8 {
                    let store = runner.isMultiple(of: 2) ? first : second
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let claimed = try await store.write {
                                try $0.claimErasureSteps(
                                    now: t0, owner: "runner-\(runner)", leaseUntil: t0.adding(seconds: 600), limit: 3)
                            }
                            if claimed.isEmpty { return mine }
                            mine += claimed.map { "\($0.job.id)/\($0.stepIndex)" }
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            await first.close()
            await second.close()
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == jobs * 2)
            #expect(Set(claimed).count == jobs * 2, "no step was leased twice")
            #expect(claims.filter { !$0.isEmpty }.count > 1, "the work was shared")
        }
    }

    /// PostgreSQL has no `INDEXED BY`: under the index-order walk its planner must still walk the open jobs'
    /// deadline index and stop at the limit, not collect and sort every due step.
    @Test("the erasure claim walks the open jobs' deadline index on PostgreSQL too")
    func erasureClaimPlan() async throws {
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            let plan = try await store.write { writer in
                let access = writer as! PostgresAccess
                return try access.walkingIndexOrder {
                    try access.connection.fetchAll(
                        "EXPLAIN " + PostgresAccess.claimErasureStepsSQL, ["o", 2, 1, "self", 16]
                    ) { row in row.text(0) }
                }
            }
            await store.close()
            #expect(plan.contains { $0.contains("Index Scan using erasure_jobs_open") }, "\(plan)")
            // A full sort above the walk would collect every open job first, whatever the limit; an incremental
            // sort (by step within a job) stops with it.
            #expect(!plan.contains { $0.contains("->  Sort  ") }, "\(plan)")
        }
    }

    @Test("a connection the server dropped is replaced and the next call succeeds")
    func reconnectsAfterServerDropsConnections() async throws {
        try await withStoreLocation(factory) { location in
            let schema = StoreFactory.postgresSchema(for: location)
            // A name of its own, so only this store's sessions are ended.
            let name = "reconnect_" + schema
            let store = try await PostgresStore.open(
                url: url + (url.contains("?") ? "&" : "?") + "application_name=" + name,
                configuration: StoreFactory.postgresConfiguration(schema: schema))
            try await store.write { try $0.recordHeartbeat(instance: "a", at: Fixtures.receivedAt) }
            let url = self.url
            let terminated = try await PostgresBlocking.run { () throws(StoreError) -> Int64 in
                do {
                    let admin = try PostgresConnection(url: url, schema: nil, connectTimeoutSeconds: 5)
                    defer { admin.close() }
                    return try admin.queryInt64(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                        [name]) ?? 0
                } catch {
                    throw StoreError(converting: error)
                }
            }
            #expect(terminated == Int64(StoreFactory.postgresConfiguration(schema: schema).connectionCount))
            for index in 1...6 {
                try await store.write {
                    try $0.recordHeartbeat(instance: "a", at: Fixtures.receivedAt.adding(seconds: Int64(index)))
                }
            }
            let count = try await store.read {
                try $0.heartbeats(from: Fixtures.receivedAt, to: Fixtures.receivedAt.adding(seconds: 60)).count
            }
            await store.close()
            #expect(count == 7)
        }
    }

    @Test("an outbox written before webhook ids keeps msg_<row id> for its messages; the column is then required")
    func outboxMessageIDMigration() async throws {
        try await withStoreLocation(factory) { location in
            let schema = StoreFactory.postgresSchema(for: location)
            let url = self.url
            try await PostgresBlocking.run { () throws(StoreError) in
                let connection: PostgresConnection
                do {
                    connection = try PostgresConnection(url: url, schema: nil, connectTimeoutSeconds: 5)
                } catch {
                    throw StoreError(converting: error)
                }
                defer { connection.close() }
                let before = Array(PostgresSchema.migrations.prefix { $0.name != "outbox-message-ids" })
                try PostgresMigrator(migrations: before).migrate(connection, schema: schema)
                do {
                    _ = try connection.query(
                        """
                        INSERT INTO outbox (app, sub, kind, payload, status, attempts, created_at_ms, available_at_ms)
                        VALUES ('shop', 's', 'account.sessions.terminate', '{}', 'pending', 2, 1, 1)
                        """)
                } catch {
                    throw StoreError(converting: error)
                }
            }
            let store = try await factory.open(location)
            let migrated = try await store.read { try $0.outbox(limit: 10) }.first
            await store.close()
            #expect(migrated?.messageID == "msg_\(migrated?.id ?? 0)")
            #expect(migrated?.attempts == 2)
        }
    }

    @Test("a schema migrated by a newer build is refused")
    func refusesNewerSchema() async throws {
        try await withStoreLocation(factory) { location in
            let store = try await factory.open(location)
            await store.close()
            let schema = StoreFactory.postgresSchema(for: location)
            try await PostgresBlocking.run { () throws(StoreError) in
                do {
                    let admin = try PostgresConnection(url: url, schema: schema, connectTimeoutSeconds: 5)
                    defer { admin.close() }
                    _ = try admin.query(
                        "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, 'from-the-future', 0)",
                        [PostgresStore.schemaVersion + 1])
                } catch {
                    throw StoreError(converting: error)
                }
            }
            await #expect(
                throws: StoreError.schemaTooNew(
                    found: PostgresStore.schemaVersion + 1, supported: PostgresStore.schemaVersion)
            ) {
                _ = try await factory.open(location)
            }
        }
    }

    @Test("a server that cannot be reached fails as unavailable without repeating the password")
    func unreachableServer() async throws {
        let secret = "s3cret-pass"
        do {
            _ = try await PostgresStore.open(
                url: "postgres://lifecycle:\(secret)@127.0.0.1:1/lifecycle?connect_timeout=2",
                configuration: PostgresStoreConfiguration(connectionCount: 1))
            Issue.record("opened a store on a closed port")
        } catch {
            guard case .unavailable(let message) = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
            #expect(!message.contains(secret))
            #expect(message.contains("cannot connect"))
        }
    }
}

/// Needs no server: which storage URLs the PostgreSQL store takes.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("URLs select PostgreSQL by their scheme only")
    func acceptsPostgresURLs() {
        #expect(PostgresStore.accepts(url: "postgres://db.internal/lifecycle?sslmode=verify-full"))
        #expect(PostgresStore.accepts(url: "postgresql://u@localhost:5432/x"))
        #expect(!PostgresStore.accepts(url: "sqlite:var/lifecycle.sqlite"))
        #expect(!PostgresStore.accepts(url: "mysql://db/lifecycle"))
    }
}
