import Foundation
import LifecycleCore
import LifecycleCrypto
import LifecycleSQL
import TestSupport
import Testing

@testable import LifecycleCLI
@testable import LifecycleEngine
@testable import LifecycleStore

/// What PostgreSQL keeps of erased data, read as raw bytes by the test superuser (`pg_read_binary_file` on
/// the relations' files after a `CHECKPOINT`, and the WAL segments written meanwhile): personal values are in
/// the heap as ciphertext only; an erased subject's old row versions, wherever they survive, open with no key
/// the service still holds; and once the master key has been rotated, not even a leftover copy of the
/// destroyed data key does.
@Suite(
    "Forensic erasure on PostgreSQL", .serialized,
    .enabled(
        if: HarnessStore.postgresServer != nil,
        "needs a PostgreSQL server: set LIFECYCLE_TEST_POSTGRES_URL (scripts/with-postgres.sh sets it)"))
struct PostgresForensicErasureTests {
    let subject = TestFixtures.subject
    let relay = "k3b7x9q2m1@privaterelay.appleid.com"

    @Test(
        "the heap and the WAL hold ciphertext only; after erasure the subject's old rows open with no key the service holds, and after a rotation not even a leftover wrapped key opens"
    )
    func ciphertextOnly() async throws {
        let scenario = try await ForensicScenario(
            store: .postgres, extraConfiguration: ["keys": ["fileCheckSeconds": 1, "instanceWaitSeconds": 30]])
        let harness = scenario.harness
        let database = try #require(harness.postgresDatabase)
        let started = SystemClock().now()
        let serve = try await scenario.startServe()
        defer { serve.kill(signal: SIGKILL) }

        let enabled = harness.body(
            type: "email-enabled", subject: subject, extra: ["email": .string(relay), "is_private_email": "true"])
        #expect(try await harness.post(enabled, port: scenario.port).status == 200)
        let jws = try ForensicScenario.jws(in: enabled)
        let sealed = try await database.withConnection { [subject] connection throws(PostgresError) in
            try connection.query(
                "SELECT sealed_email, sealed_raw_jws, jti FROM notifications WHERE sub = $1", [subject]
            ).first.map { ($0.bytea(0) ?? [], $0.bytea(1) ?? [], $0.text(2)) }
        }
        let (sealedEmail, sealedToken, jti) = try #require(sealed)
        let row = try await database.withConnection { [subject] connection throws(PostgresError) in
            try connection.query("SELECT \(SubjectKeyRow.columns) FROM subject_keys WHERE sub = $1", [subject]).first
        }
        let stored = try SubjectKeyRow.decode(try #require(row))
        let wrapped = try #require(stored.wrappedKey)
        let email = StoredSealedValue(
            column: .notificationEmail, app: ServiceHarness.appID, subject: subject, rowKey: jti, notificationID: nil,
            sealed: sealedEmail)
        #expect(
            try Self.open(email, wrapped: [wrapped], scenario: scenario) == Array(relay.utf8), "control: it opens now")

        // The WAL first: the heap check's checkpoint would let the server recycle segments.
        let wal = try await Self.foundInWAL(
            [Array(relay.utf8), Array(jws.utf8), sealedEmail], since: started, database)
        #expect(wal == [false, false, true], "the WAL written meanwhile holds the sealed e-mail, never the clear text")
        let relations = ["notifications", "subject_keys"]
        let heap = try await Self.found(
            [Array(relay.utf8), Array(jws.utf8), sealedEmail, sealedToken, wrapped], in: relations, database)
        #expect(heap == [false, false, true, true, true], "e-mail, raw JWS in the clear; sealed e-mail, JWS, key")

        #expect(
            try await harness.post(harness.body(type: "account-delete", subject: subject), port: scenario.port).status
                == 200)
        try await Self.waitForHygiene(of: subject, in: database)

        // Whatever old row versions survive in the files: not one opens with what the service holds.
        let liveWrapped = try await Self.liveWrappedKeys(in: database)
        #expect(!liveWrapped.contains(wrapped), "the subject's data key is no longer stored")
        #expect(try Self.open(email, wrapped: liveWrapped, scenario: scenario) == nil)
        let leftover = try await Self.found([wrapped], in: ["subject_keys"], database)[0]
        print("after VACUUM the destroyed wrapped key is \(leftover ? "still" : "no longer") in the key table's pages")

        // The rotation: the master key in force at the erasure is destroyed; a leftover wrapped key (here,
        // in a backup, a replica or a WAL segment) opens with nothing the service holds.
        let (io, output, errors) = CommandIO.capturing()
        let status = await CommandLineInterface.run(
            arguments: ["keys", "rotate", "--config", harness.configurationFile], io: io)
        #expect(status == 0, "keys rotate: \(errors())")
        #expect(output().contains("in force"))
        let rotated = try scenario.vault()
        #expect(rotated.keyring.key(id: stored.masterKeyID) == nil, "the old master key left the key file")
        #expect(
            try Self.open(
                email, wrapped: [wrapped] + (try await Self.liveWrappedKeys(in: database)), scenario: scenario) == nil)
        serve.kill(signal: SIGTERM)
        #expect(await serve.waitForExit() == 0)
    }

    /// Tries `value` with the data key inside each wrapped key, unwrapped by each master key of the key file
    /// as it is now; the plaintext, or nil when nothing opens it.
    static func open(_ value: StoredSealedValue, wrapped: [[UInt8]], scenario: ForensicScenario) throws -> [UInt8]? {
        let vault = try scenario.vault()
        for candidate in wrapped {
            for id in vault.keyring.ids {
                let stored = StoredSubjectKey(
                    app: value.app, subject: value.subject, scope: .notifications, wrappedKey: candidate,
                    masterKeyID: id, createdAt: Instant(millisecondsSinceEpoch: 0), destroyedAt: nil)
                guard let dataKey = try? vault.unwrap(stored) else { continue }
                if let plaintext = try? vault.open(value, dataKey: dataKey) { return plaintext }
            }
        }
        return nil
    }

    static func liveWrappedKeys(in database: PostgresTestDatabase) async throws -> [[UInt8]] {
        try await database.withConnection { connection throws(PostgresError) in
            try connection.query("SELECT wrapped_key FROM subject_keys WHERE wrapped_key IS NOT NULL").compactMap {
                $0.bytea(0)
            }
        }
    }

    /// Whether each needle occurs in the files of `relations` (and their TOAST tables) as on disk after a
    /// checkpoint; the server searches (`position` in `pg_read_binary_file`), so no file crosses the wire.
    static func found(
        _ needles: [[UInt8]], in relations: [String], _ database: PostgresTestDatabase
    ) async throws -> [Bool] {
        try await database.withConnection { connection throws(PostgresError) in
            try connection.execute("CHECKPOINT")
            var found: [Bool] = []
            for needle in needles {
                var any = false
                for relation in relations {
                    let hits = try connection.queryInt64(
                        """
                        SELECT count(*) FROM pg_class AS c
                        WHERE (c.oid = $1::regclass
                            OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = $1::regclass))
                            AND position($2::bytea IN pg_read_binary_file(pg_relation_filepath(c.oid))) > 0
                        """, [relation, needle])
                    any = any || (hits ?? 0) > 0
                }
                found.append(any)
            }
            return found
        }
    }

    /// Whether each needle occurs in the WAL segments modified since `since`, read as the records' bytes: every
    /// WAL page (`wal_block_size`) starts with a page header, 40 bytes on a segment's first page and 24 on the
    /// others (`SizeOfXLogLongPHD`, `SizeOfXLogShortPHD`, src/include/access/xlog_internal.h), and a record that
    /// runs past the end of a page continues after the next page's header, in the next segment file when the
    /// page was a segment's last. So a value written across a page boundary is not contiguous in the files;
    /// searching each file as it is missed the sealed e-mail whenever its record straddled a page (a chance of
    /// its length in 8,192 per run) or two segment files (16 MiB each). The headers are cut out, and each
    /// segment is searched with the start of the next one in log order (their names) after it, as long as the
    /// needle less a byte: two segments and their join in the server's memory at a time (about 48 MiB), however
    /// much WAL the other tests wrote meanwhile. A needle longer than a segment could span three; none here is.
    static func foundInWAL(_ needles: [[UInt8]], since: Instant, _ database: PostgresTestDatabase) async throws
        -> [Bool]
    {
        // No checkpoint: the WAL is written at commit, and a checkpoint could recycle the segment that holds
        // the write (the test server keeps segments with `wal_keep_size`, scripts/with-postgres.sh).
        let pageSize = try await database.withConnection { connection throws(PostgresError) in
            try connection.query("SHOW wal_block_size").first.flatMap { Int64($0.text(0)) }
        }
        let page = try #require(pageSize, "wal_block_size")
        return try await database.withConnection { connection throws(PostgresError) in
            var found: [Bool] = []
            for needle in needles {
                let hits = try connection.queryInt64(
                    """
                    WITH segments AS (
                        SELECT w.name, (
                            SELECT string_agg(
                                    substring(f.bytes FROM n.page * $3 + CASE WHEN n.page = 0 THEN 40 ELSE 24 END + 1
                                        FOR $3 - CASE WHEN n.page = 0 THEN 40 ELSE 24 END),
                                    ''::bytea ORDER BY n.page)
                            FROM (SELECT pg_read_binary_file('pg_wal/' || w.name) AS bytes) AS f,
                                generate_series(0, length(f.bytes) / $3 - 1) AS n(page)
                        ) AS records
                        FROM pg_ls_waldir() AS w
                        WHERE w.name ~ '^[0-9A-F]{24}$'
                            AND w.modification >= to_timestamp($1::bigint / 1000.0) - interval '1 second'
                    )
                    SELECT count(*) FROM (
                        SELECT records || substring(lead(records, 1, ''::bytea) OVER (ORDER BY name)
                            FROM 1 FOR length($2::bytea) - 1) AS joined
                        FROM segments
                    ) AS pairs
                    WHERE position($2::bytea IN pairs.joined) > 0
                    """, [since.millisecondsSinceEpoch, needle, page])
                found.append((hits ?? 0) > 0)
            }
            return found
        }
    }

    @Test("the WAL search finds a value written across two segment files, and not one never written")
    func walSearchAcrossSegments() async throws {
        let database = try await PostgresTestDatabase.create(serverURL: try #require(HarnessStore.postgresServer))
        let started = SystemClock().now()
        // 1 MiB of random bytes (no shorter run of them is found by chance elsewhere), written as a logical
        // message (a WAL record holding the bytes as they are; transactional, so its commit writes it to the
        // file rather than leave it in the server's WAL buffers) after a padding message that brings the log
        // to 512 KiB before a segment's end, so its middle is aimed at the boundary. Other tests write to the
        // server's log meanwhile and may move it by up to 512 KiB either way: where the record ended says
        // whether it straddled, and a miss is tried again.
        let needle = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255) }
        let never = (0..<64).map { _ in UInt8.random(in: 0...255) }
        var straddled = false
        for _ in 0..<5 where !straddled {
            let end = try await database.withConnection { [needle] connection throws(PostgresError) in
                let segment =
                    try connection.queryInt64("SELECT setting::bigint FROM pg_settings WHERE name = 'wal_segment_size'")
                    ?? 0
                let at = try connection.queryInt64("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn") ?? 0
                // To 512 KiB before the next boundary far enough ahead, less the page headers on the way (24
                // bytes per 8 KiB page).
                var ahead = segment - at % segment - 524_288
                if ahead < 65_536 { ahead += segment }
                let padding = max(0, ahead * 8_168 / 8_192 - 256)
                _ = try connection.queryInt64(
                    "SELECT pg_logical_emit_message(false, 'lifecycle-test', repeat('x', $1::int)::bytea) - '0/0'::pg_lsn",
                    [padding])
                let end =
                    try connection.queryInt64(
                        "SELECT pg_logical_emit_message(true, 'lifecycle-test', $1::bytea) - '0/0'::pg_lsn", [needle])
                    ?? 0
                return end % segment
            }
            // The record (1 MiB and its page headers) ends at least 1 KiB into a segment and starts before it.
            straddled = end >= 1_024 && end < 1_040_000
        }
        let found = try await Self.foundInWAL([needle, never], since: started, database)
        await database.drop()
        #expect(straddled, "the needle's record was placed across a segment boundary")
        #expect(found == [true, false])
    }

    static func waitForHygiene(of subject: String, in database: PostgresTestDatabase) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let done = try await database.withConnection { connection throws(PostgresError) in
                try connection.queryInt64(
                    """
                    SELECT count(*) FROM erasure_steps AS s JOIN erasure_jobs AS j ON j.id = s.job_id
                    WHERE j.sub = $1 AND j.status = 'completed' AND s.target = 'self'
                        AND s.hygiene LIKE 'VACUUM subject_keys at %'
                    """, [subject])
            }
            if (done ?? 0) > 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the erasure's hygiene did not complete")
    }
}
