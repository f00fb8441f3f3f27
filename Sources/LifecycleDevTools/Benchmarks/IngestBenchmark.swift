import AppleNotifications
import Dispatch
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleCrypto
import LifecycleEngine
import LifecycleServer
import LifecycleStore
import Synchronization

/// `lifecycle bench ingest`: the whole acknowledged-durable path under load, self-contained and reproducible.
///
/// Generates a key pair standing in for Apple's, signs `bodyCount` unique notifications up front (signing is
/// the client's cost, not the server's), starts the real service on loopback with a real SQLite file, drives it
/// closed-loop over K keep-alive connections for D seconds, then checks that every notification answered 200
/// is in the database.
package struct IngestBenchmark {
    package struct Options {
        package var connections = 16
        package var duration: Duration = .seconds(10)
        package var bodyCount = 120_000
        package var directory: String?
        /// A storage URL to use instead of `sqlite:bench.sqlite` in the work directory (`--store`).
        package var storeURL: String?

        package init() {}
    }

    package struct Report {
        var requests: Int
        var accepted: Int
        var otherStatuses: [Int: Int]
        var failures: Int
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
        var p999: Double
        package var missingFromStore: Int
        var commits: Int
        var largestBatch: Int
        var bodiesExhausted: Bool

        package var json: JSONValue {
            [
                "requests": .integer(Int64(requests)), "acknowledged": .integer(Int64(accepted)),
                "failures": .integer(Int64(failures)),
                "otherStatuses": .object(
                    JSONObject(
                        Dictionary(
                            uniqueKeysWithValues: otherStatuses.map {
                                (String($0.key), JSONValue.integer(Int64($0.value)))
                            }))),
                "requestsPerSecond": .number(requestsPerSecond.rounded()), "p50Milliseconds": .number(p50),
                "p99Milliseconds": .number(p99), "p999Milliseconds": .number(p999),
                "missingFromStore": .integer(Int64(missingFromStore)), "commits": .integer(Int64(commits)),
                "largestBatch": .integer(Int64(largestBatch)), "bodiesExhausted": .bool(bodiesExhausted),
            ]
        }

        package var text: String {
            """
            requests        \(requests) (\(accepted) acknowledged 200, \(failures) transport failures\(otherStatuses.isEmpty ? "" : ", other statuses \(otherStatuses)"))
            throughput      \(Int(requestsPerSecond.rounded())) req/s
            latency         p50 \(format(p50)) ms, p99 \(format(p99)) ms, p99.9 \(format(p999)) ms
            durability      \(missingFromStore) acknowledged notifications missing from the store
            group commit    \(commits) commits, largest batch \(largestBatch)\(bodiesExhausted ? "\nnote            the pre-signed bodies ran out before the duration ended; raise --bodies" : "")
            """
        }

        private func format(_ value: Double) -> String { String(format: "%.2f", value) }
    }

    package static func run(_ options: Options, progress: @Sendable (String) -> Void) async throws -> Report {
        let directory = try BenchmarkSupport.workDirectory(options.directory)
        let pair = try DevKeyPair.generate(keyID: "bench")
        let jwksPath = directory + "/jwks.json"
        try Data(try pair.jwks().encoded()).write(to: URL(fileURLWithPath: jwksPath))
        let clientID = "com.example.bench"
        let config: JSONValue = [
            "storage": ["url": .string(options.storeURL ?? "sqlite:bench.sqlite")],
            "public": ["host": "127.0.0.1", "port": 0],
            "admin": ["enabled": false],
            "apple": ["jwks": "jwks.json"],
            "apps": [["id": "bench", "clientIds": [.string(clientID)]]],
            "pseudonymKeyFile": "pseudonym.key",
        ]
        let configPath = directory + "/lifecycle.json"
        try Data(config.serialized().utf8).write(to: URL(fileURLWithPath: configPath))

        progress("signing \(options.bodyCount) unique notifications …")
        let now = SystemClock().now()
        let bodies = try signBodies(count: options.bodyCount, signer: pair.signer, audience: clientID, now: now)

        let configuration = try ServiceConfiguration.load(file: configPath, environment: [:])
        // The service logs one line per notification, as in production; here into a file beside the database.
        let logPath = directory + "/serve.log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
            let logFile = FileHandle(forWritingAtPath: logPath)
        else { throw BenchmarkError("cannot create \(logPath)") }
        let context = try await ServiceContext.open(
            configuration: configuration, logSink: { line in logFile.write(Data((line + "\n").utf8)) })
        let runtime = ServiceRuntime(context: context)
        try await runtime.start()
        guard let port = runtime.publicPort else { throw BenchmarkError("the server did not bind") }

        progress("driving 127.0.0.1:\(port) with \(options.connections) connections for \(options.duration) …")
        let acknowledged = Mutex<[Int]>([])
        let generator = LoadGenerator(
            configuration: LoadGenerator.Configuration(
                host: "127.0.0.1", port: port, connections: options.connections, duration: options.duration,
                totalRequests: bodies.count),
            request: { sequence in
                HTTPClientRequest(
                    method: "POST", target: "/apple/notifications", headers: ["Content-Type": "application/json"],
                    body: bodies[sequence].body)
            },
            onResponse: { sample, response in
                if response?.status == 200 { acknowledged.withLock { $0.append(sample.sequence) } }
            })
        let result = await generator.run()
        let statistics = context.store.statistics
        await runtime.stop()

        progress("checking every acknowledged notification is in the database …")
        let store = try await ServiceContext.openStore(configuration.storage)
        let acknowledgedJTIs = acknowledged.withLock { $0 }.map { bodies[$0].jti }
        let missing = try await store.read { reader in
            try acknowledgedJTIs.reduce(0) { count, jti in try reader.notification(jti: jti) == nil ? count + 1 : count
            }
        }
        await store.close()
        if options.directory == nil { try? FileManager.default.removeItem(atPath: directory) }

        var other: [Int: Int] = [:]
        for (status, count) in result.statusCounts where status != 200 { other[status] = count }
        return Report(
            requests: result.count, accepted: acknowledgedJTIs.count, otherStatuses: other,
            failures: result.failureCount, requestsPerSecond: result.requestsPerSecond,
            p50: Double(result.latencyNanoseconds(atQuantile: 0.5)) / 1e6,
            p99: Double(result.latencyNanoseconds(atQuantile: 0.99)) / 1e6,
            p999: Double(result.latencyNanoseconds(atQuantile: 0.999)) / 1e6,
            missingFromStore: missing, commits: statistics.commits, largestBatch: statistics.largestBatch,
            bodiesExhausted: result.count >= bodies.count)
    }

    /// Signs in parallel on every core; RSA signing dominates set-up time.
    static func signBodies(
        count: Int, signer: NotificationSigner, audience: String, now: Instant
    ) throws -> [(jti: String, body: [UInt8])] {
        let slots = Mutex<[(jti: String, body: [UInt8])?]>(Array(repeating: nil, count: count))
        let failure = Mutex<(any Error)?>(nil)
        let types = ["consent-revoked", "email-disabled", "email-enabled", "account-delete"]
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let jti = NotificationSigner.makeJTI()
            let event = AppleEvent(
                type: AppleEventType(wireValue: types[index % types.count]),
                subject: "000\(index % 1000).bench\(index).0001",
                eventTime: now.adding(milliseconds: Int64(index)))
            do {
                let jws = try signer.sign(event: event, audience: audience, issuedAt: now, jti: jti)
                let body = NotificationBody.encode(jws: jws)
                slots.withLock { $0[index] = (jti, body) }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return slots.withLock { $0.compactMap { $0 } }
    }
}
