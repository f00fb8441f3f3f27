import Foundation
import LifecycleCore
import Testing

/// What `/metrics` shows after `serve` restarts, for the series an operator alerts on by age.
@Suite("Metrics across a restart")
struct MetricsAcrossRestartTests {
    static let name = "lifecycle_last_accepted_notification_timestamp_seconds"

    @Test(
        "the last accepted notification's time survives a restart: the new serve shows the stored one before any new notification"
    )
    func lastAcceptedAfterRestart() async throws {
        let fixture = try await ServeFixture()
        try await fixture.start()
        #expect(try await fixture.metric(Self.name) == nil, "no notification yet: no sample")
        let body = fixture.notification(type: "consent-revoked", subject: ServeProcessTests.subject)
        #expect(try await fixture.post(body).status == 200)
        let before = try #require(try await fixture.metric(Self.name))
        #expect(await fixture.stop() == [0])

        try await fixture.start()
        let restored = await eventually(timeout: .seconds(10)) {
            (try? await fixture.metric(Self.name)) == before
        }
        let after = try await fixture.metric(Self.name)
        #expect(restored, "after the restart: \(String(describing: after)), before it: \(before)")
        #expect(await fixture.stop() == [0])
    }
}
