import Foundation
import HTTP1
import LifecycleCore
import LifecycleStore
import TestSupport
import Testing

@testable import LifecycleEngine
@testable import LifecycleServer

/// `admin.openapi.json` is the admin API's contract: the routes served and the routes described must be the
/// same set, and each described operation must answer with a status it documents.
@Suite("Admin API OpenAPI document")
struct AdminOpenAPITests {
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options"]

    static func document() throws -> JSONValue {
        try JSONValue.parse(try #require(AdminOpenAPI.document))
    }

    /// (method, path template) of every operation the document describes.
    static func operations(_ document: JSONValue) throws -> [(
        method: String, path: String, responses: [String], requiredQuery: [String]
    )] {
        let paths = try #require(document["paths"]?.objectValue)
        var result: [(method: String, path: String, responses: [String], requiredQuery: [String])] = []
        for path in paths {
            for method in methods {
                guard let operation = path.value[method] else { continue }
                let responses = try #require(operation["responses"]?.objectValue).map(\.key)
                let required = (operation["parameters"]?.arrayValue ?? []).filter {
                    $0["in"] == "query" && $0["required"] == .bool(true)
                }.compactMap { $0["name"]?.stringValue }
                result.append((method.uppercased(), path.key, responses, required))
            }
        }
        return result
    }

    @Test("the bundled document is the repository file, OpenAPI 3.1 with a bearer security scheme")
    func documentShape() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/LifecycleServer/AdminAPI/admin.openapi.json")
        #expect(try Array(Data(contentsOf: source)) == AdminOpenAPI.document)
        let document = try Self.document()
        #expect(document["openapi"]?.stringValue?.hasPrefix("3.1") == true)
        #expect(document["components"]?["securitySchemes"]?["adminToken"]?["scheme"] == "bearer")
        #expect(document["security"] == [["adminToken": []]])
    }

    @Test("the documented error codes are exactly the codes the server can answer")
    func errorCodesMatch() throws {
        let documented = try #require(
            try Self.document()["components"]?["schemas"]?["Error"]?["properties"]?["error"]?["enum"]?.arrayValue)
        #expect(documented.compactMap(\.stringValue) == AdminErrorCode.allCases.map(\.rawValue))
    }

    @Test("every documented operation is routed and every route is documented")
    func documentMatchesRoutes() throws {
        let documented = Set(try Self.operations(try Self.document()).map { "\($0.method) \($0.path)" })
        let routed = Set(AdminRoute.all.map { "\($0.method) \($0.template)" })
        #expect(documented == routed)
    }

    @Test("every documented operation answers with the token, with a status it documents, never 404/405")
    func everyOperationAnswers() async throws {
        // The seeded jobs are driven by hand here, not by the runner.
        // The shipped policies: the seeded jobs' `default@1` states the extension a request decision records.
        let harness = try ServiceHarness(
            extraConfiguration: [
                "erasure": ["runInServe": false], "policiesDirectory": .string(ErasureScenario.shippedPolicies),
            ], adminToken: AdminAPITests.token)
        let service = try await harness.start()
        let deadID = try await AdminAPITests.deadMessage(in: service.context.store)
        _ = try await AdminAPITests.call(harness, "PUT", AdminAPITests.accountPath() + "/link")

        let (failedJob, waitingJob) = try await Self.seedJobs(in: service.context.store)
        let values = [
            "{app}": ServiceHarness.appID, "{sub}": PercentDecoding.encode(TestFixtures.subject),
            "{target}": "backend",
        ]
        // Reads first, then the changes; the request decisions after the job routes (a refusal cancels the
        // seeded jobs), a hold before its release; deletion last so link still finds a live account.
        let order = ["GET", "PUT", "POST"]
        let decisions = ["/request/extension", "/request/hold", "/request/release", "/request/refusal"]
        func rank(_ path: String) -> Int {
            if path.hasSuffix("deletion") { return 9 }
            return (decisions.firstIndex { path.hasSuffix($0) }).map { $0 + 1 } ?? 0
        }
        let operations = try Self.operations(try Self.document()).sorted {
            (order.firstIndex(of: $0.method) ?? 9, rank($0.path)) < (
                order.firstIndex(of: $1.method) ?? 9, rank($1.path)
            )
        }
        let now = SystemClock().now()
        let bodies = [
            "/request/extension": JSONValue.object([
                "reason": "many systems to search", "noticeAt": .string(now.iso8601),
                "deadline": .string(now.adding(seconds: 30 * 86_400).iso8601),
            ]),
            "/request/hold": ["grounds": "litigation hold"], "/request/release": ["reason": "lifted"],
            "/request/refusal": ["basis": "Cal. Civ. Code §1798.105(d)(2)"],
        ]
        #expect(operations.count == AdminRoute.all.count)
        for operation in operations {
            var target = operation.path
            // {id} names an outbox message, or the failed job (retry) or the job waiting for its callback.
            let id =
                operation.path.hasSuffix("/complete")
                ? waitingJob : operation.path.hasPrefix("/v1/jobs") ? failedJob : deadID
            target = target.replacingOccurrences(of: "{id}", with: String(id))
            for (name, value) in values { target = target.replacingOccurrences(of: name, with: value) }
            // A required query parameter gets the value of the path parameter of the same name.
            let query = operation.requiredQuery.compactMap { name in values["{\(name)}"].map { "\(name)=\($0)" } }
            if !query.isEmpty { target += "?" + query.joined(separator: "&") }
            let body = bodies.first { operation.path.hasSuffix($0.key) }?.value.serialized()
            let answer = try await AdminAPITests.call(harness, operation.method, target, body: body)
            #expect(answer.status != 404 && answer.status != 405, "\(operation.method) \(operation.path)")
            #expect(
                answer.status == 200, "\(operation.method) \(operation.path) answered \(answer.status) \(answer.text)")
            #expect(operation.responses.contains(String(answer.status)), "\(operation.method) \(operation.path)")
            if operation.path == "/metrics" {
                // The one operation documented as text/plain: the Prometheus exposition.
                #expect(answer.text.contains("# TYPE lifecycle_"), "GET /metrics answered no metric family")
            } else {
                #expect(answer.json != nil, "\(operation.method) \(operation.path) answered non-JSON")
            }
        }
        await harness.stop()
    }

    @Test(
        "every documented query parameter is accepted by its route, and the jobs and account views carry what the schemas require"
    )
    func queryParametersAndShapes() async throws {
        let harness = try ServiceHarness(
            extraConfiguration: ["erasure": ["runInServe": false]], adminToken: AdminAPITests.token)
        let service = try await harness.start()
        _ = try await AdminAPITests.call(harness, "PUT", AdminAPITests.accountPath() + "/link")
        _ = try await Self.seedJobs(in: service.context.store)
        let document = try Self.document()
        let paths = try #require(document["paths"]?.objectValue)
        for path in paths where !path.key.contains("{") {
            for parameter in path.value["get"]?["parameters"]?.arrayValue ?? [] where parameter["in"] == "query" {
                let name = try #require(parameter["name"]?.stringValue)
                let schema = parameter["schema"]
                let value =
                    schema?["enum"]?.arrayValue?.first?.stringValue
                    ?? (schema?["type"] == "integer" ? "1" : schema?["type"] == "boolean" ? "true" : "shop")
                let answer = try await AdminAPITests.call(harness, "GET", "\(path.key)?\(name)=\(value)")
                #expect(answer.json?["error"] != "unknown_parameter", "GET \(path.key)?\(name)= is routed")
            }
        }
        func required(_ schema: String) throws -> [String] {
            try #require(document["components"]?["schemas"]?[schema]?["required"]?.arrayValue).compactMap(\.stringValue)
        }
        let jobs = try await AdminAPITests.call(harness, "GET", "/v1/jobs")
        let job = try #require(jobs.json?["jobs"]?.arrayValue?.first?.objectValue)
        #expect(try required("Job").allSatisfy { job[$0] != nil }, "a job has every property Job requires")
        let step = try #require(job["steps"]?.arrayValue?.first?.objectValue)
        #expect(try required("JobStep").allSatisfy { step[$0] != nil }, "a step has every property JobStep requires")
        let account = try await AdminAPITests.call(harness, "GET", AdminAPITests.accountPath())
        #expect(account.json?["erasureJobs"]?.arrayValue?.count == 2, "the account view carries its jobs")
        await harness.stop()
    }

    /// One erasure job whose only step failed, and one whose webhook step waits for its callback.
    static func seedJobs(in store: any Store) async throws -> (failed: Int64, waiting: Int64) {
        let now = SystemClock().now()
        @Sendable func plan(_ target: String) -> ErasureJobPlan {
            ErasureJobPlan(
                policyReference: "default@1#00", trigger: .accountDeleted, eventTime: now, origin: .rule(index: 0),
                categories: [.profile], targets: [target], notBefore: now, deadline: now.adding(seconds: 86_400),
                cancelIfRelinked: false, basis: nil)
        }
        return try await store.write { writer in
            let failed = try writer.insertErasureJob(
                app: ServiceHarness.appID, subject: TestFixtures.subject, plan: plan("app-db"), createdAt: now)
            let waiting = try writer.insertErasureJob(
                app: ServiceHarness.appID, subject: TestFixtures.subject, plan: plan("backend"), createdAt: now)
            _ = try writer.claimErasureSteps(now: now, owner: "seed", leaseUntil: now.adding(seconds: 60), limit: 10)
            try writer.recordErasureStep(
                jobID: failed, index: 0,
                step: ErasureStep(
                    target: "app-db", status: .failed, attempts: 3, nextAttemptAt: nil, lastAttemptAt: now,
                    finishedAt: now, evidence: ErasureStepEvidence(errorCode: .sqliteOpen)),
                owner: "seed", at: now)
            try writer.recordErasureStep(
                jobID: waiting, index: 0,
                step: ErasureStep(
                    target: "backend", status: .waitingCallback, attempts: 1, nextAttemptAt: nil, lastAttemptAt: now,
                    finishedAt: nil, evidence: ErasureStepEvidence(responseStatus: 202)),
                owner: "seed", at: now)
            return (failed, waiting)
        }
    }
}
