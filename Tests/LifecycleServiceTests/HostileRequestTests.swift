import AppleNotifications
import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import LifecycleDevTools
import TestSupport
import Testing

@testable import LifecycleEngine

/// "A request never takes the process down": every admin route and the public notification route get the
/// edge values that broke or could break a parser (fractional digits 0–12, second 60, years 0000 and 9999,
/// offsets ±14:00 and ±24:00, integers past Int64, `1e400`, `-0`, nesting 10,000 deep, 1 MiB strings),
/// sent to one real `lifecycle serve` process. Each gets its documented answer — never a 5xx, never a
/// dropped connection — and the process still answers `/healthz` afterwards.
@Suite("Hostile requests against a real serve process")
struct HostileRequestTests {
    static let token = "hostile-request-admin-token-0123456789"

    struct Probe: Sendable {
        var name: String
        var method: String
        var target: String
        var body: String
        /// The exact status expected, or nil for "some 4xx".
        var status: Int?
    }

    static let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    static let mebibyte = String(repeating: "x", count: 1 << 20)
    static let account = "/v1/apps/\(ServiceHarness.appID)/accounts/001234.hostile"

    static func eventTimeProbes() -> [Probe] {
        let year = Calendar(identifier: .gregorian).component(.year, from: Date()) - 1
        var probes: [Probe] = []
        for digits in 0...12 {
            let fraction = digits == 0 ? "" : "." + String(String(repeating: "123456789", count: 2).prefix(digits))
            let time = "\(year)-06-01T12:00:00\(fraction)Z"
            probes.append(
                Probe(
                    name: "\(digits) fractional digits", method: "PUT", target: account + "/link",
                    body: "{\"eventTime\":\"\(time)\"}", status: digits <= 9 ? 200 : 422))
        }
        let accepted = [
            "2016-12-31T23:59:60Z", "0000-01-01T00:00:00Z", "\(year)-06-01T12:00:00+14:00",
            "\(year)-06-01T12:00:00-14:00",
        ]
        for time in accepted {
            probes.append(
                Probe(
                    name: time, method: "PUT", target: account + "/link",
                    body: "{\"eventTime\":\"\(time)\"}", status: 200))
        }
        let refused = [
            ("9999-12-31T23:59:59.999Z", 422), ("\(year)-06-01T12:00:00+24:00", 422),
            ("\(year)-06-01T12:00:00-24:00", 422), ("\(year)-06-01T12:00:61Z", 422),
        ]
        for (time, status) in refused {
            for (method, path) in [("PUT", "/link"), ("POST", "/deletion")] {
                probes.append(
                    Probe(
                        name: "\(path) \(time)", method: method, target: account + path,
                        body: "{\"eventTime\":\"\(time)\"}", status: status))
            }
        }
        for (method, path) in [("PUT", "/link"), ("POST", "/deletion")] {
            for (name, body) in [
                ("1e400", "{\"eventTime\":1e400}"), ("past Int64", "{\"eventTime\":9223372036854775808}"),
                ("-0", "{\"eventTime\":-0}"), ("nesting 10,000 deep", deep),
                ("nested eventTime", "{\"eventTime\":\(deep)}"), ("1 MiB eventTime", "{\"eventTime\":\"\(mebibyte)\"}"),
            ] {
                probes.append(
                    Probe(name: "\(path) \(name)", method: method, target: account + path, body: body, status: nil))
            }
        }
        return probes
    }

    static func idProbes() -> [Probe] {
        var probes: [Probe] = []
        for route in ["/v1/outbox", "/v1/jobs", "/v1/findings"] {
            for (value, status) in [
                ("9223372036854775808", 400), ("99999999999999999999999", 400), ("-0", 400), ("1e400", 400),
                ("0", 400), ("9223372036854775807", 200),
            ] {
                probes.append(
                    Probe(
                        name: "\(route) after=\(value)", method: "GET", target: "\(route)?after=\(value)", body: "",
                        status: status))
            }
            probes.append(
                Probe(
                    name: "\(route) limit past Int64", method: "GET", target: "\(route)?limit=9223372036854775808",
                    body: "", status: 400))
            probes.append(
                Probe(
                    name: "\(route) 1 MiB query", method: "GET",
                    target: "\(route)?app=\(String(mebibyte.prefix(7000)))", body: "", status: nil))
        }
        for path in ["/v1/outbox/%@/retry", "/v1/jobs/%@/retry", "/v1/jobs/%@/steps/app-db/complete"] {
            for id in ["9223372036854775808", "-0", "1e400", "0", "9223372036854775807"] {
                probes.append(
                    Probe(
                        name: path.replacingOccurrences(of: "%@", with: id), method: "POST",
                        target: path.replacingOccurrences(of: "%@", with: id), body: "", status: 404))
            }
        }
        let complete = "/v1/jobs/1/steps/app-db/complete"
        for (body, status) in [
            ("{\"rowsAffected\":9223372036854775808}", 422), ("{\"rowsAffected\":1e400}", 422),
            ("{\"rowsAffected\":-0}", 404), ("{\"rowsAffected\":158.0}", 404), ("{\"rowsAffected\":158.5}", 422),
            (deep, 422), ("{\"outcome\":\"\(mebibyte)\"}", nil),
            // A member name the route does not take is named in the refusal: bounded, and on one line.
            ("{\"\(String(mebibyte.prefix(60_000)))\u{2028}\":1}", 422),
        ] {
            probes.append(
                Probe(name: "complete \(body.prefix(40))", method: "POST", target: complete, body: body, status: status)
            )
        }
        probes.append(
            Probe(
                name: "account with a 1 MiB sub", method: "GET",
                target: "/v1/apps/shop/accounts/\(String(mebibyte.prefix(7000)))", body: "", status: nil))
        return probes
    }

    @Test("every edge value gets its documented 4xx (or 200 where valid) and the process lives on")
    func processSurvives() async throws {
        let harness = try ServiceHarness(adminToken: Self.token)
        let publicPort = try await WebhookReceiver.unusedPort()
        let adminPort = try await WebhookReceiver.unusedPort()
        try harness.setPublicPort(publicPort)
        try harness.setAdminPort(adminPort)
        let service = try LifecycleProcess.serve(configurationFile: harness.configurationFile)
        defer { service.kill(signal: SIGKILL) }
        try await LifecycleProcess.waitUntilReady(port: publicPort)
        let admin = HTTPClient(host: "127.0.0.1", port: adminPort, timeout: .seconds(10))

        for probe in Self.eventTimeProbes() + Self.idProbes() {
            var headers = HTTPHeaders()
            try headers.add(name: "Authorization", value: "Bearer \(Self.token)")
            if !probe.body.isEmpty { try headers.add(name: "Content-Type", value: "application/json") }
            let response = try await admin.send(
                HTTPClientRequest(
                    method: probe.method, target: probe.target, headers: headers, body: Array(probe.body.utf8)))
            // A refusal names what it refused, never the whole of it: no answer grows with the request.
            #expect(response.body.count <= 2048, "\(probe.name): an answer of \(response.body.count) bytes")
            #expect(
                !String(decoding: response.body, as: UTF8.self).unicodeScalars.contains("\u{2028}"),
                "\(probe.name): a raw line separator in the answer")
            if let status = probe.status {
                #expect(
                    response.status == status,
                    "\(probe.name): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
            } else {
                #expect((400...499).contains(response.status), "\(probe.name): \(response.status)")
            }
        }

        for (name, body) in Self.publicBodies(harness) {
            let response = try await harness.post(body, port: publicPort)
            #expect((400...499).contains(response.status), "public \(name): \(response.status)")
        }

        let health = try await HTTPClient(host: "127.0.0.1", port: publicPort).get("/healthz")
        #expect(health.status == 200)
        service.kill(signal: SIGTERM)
        #expect(await service.waitForExit() == 0, "serve did not shut down cleanly after the probes")
    }

    /// Bodies for `POST /apple/notifications`: malformed envelopes, and tokens correctly signed by the trusted
    /// key whose events hold the edge values (so they get past the signature to the event decoder).
    static func publicBodies(_ harness: ServiceHarness) -> [(String, [UInt8])] {
        func signed(eventsText: String) -> [UInt8] {
            let claims = TestTokenFactory.claims(
                audience: ServiceHarness.clientID, issuedAt: SystemClock().now(),
                overrides: ["events": .string(eventsText), "jti": .string(NotificationSigner.makeJTI())])
            return NotificationBody.encode(jws: harness.tokens.token(claims: claims))
        }
        func event(_ time: String) -> String {
            "{\"type\":\"account-delete\",\"sub\":\"001234.hostile\",\"event_time\":\(time)}"
        }
        return [
            ("nesting 10,000 deep", Array(deep.utf8)),
            ("payload nested", Array("{\"payload\":\(deep)}".utf8)),
            ("1 MiB payload", Array("{\"payload\":\"\(mebibyte)\"}".utf8)),
            ("payload 1e400", Array("{\"payload\":1e400}".utf8)),
            ("payload -0", Array("{\"payload\":-0}".utf8)),
            ("event_time past Int64", signed(eventsText: event("9223372036854775808"))),
            ("event_time Int64.max", signed(eventsText: event("9223372036854775807"))),
            ("event_time 1e400", signed(eventsText: event("1e400"))),
            ("event_time -0.5", signed(eventsText: event("-0.5"))),
            ("event_time year 10000", signed(eventsText: event("253402300800000"))),
            ("event_time 12 fractional digits", signed(eventsText: event("\"2026-01-01T00:00:00.123456789012Z\""))),
            ("events nested", signed(eventsText: deep)),
        ]
    }
}
