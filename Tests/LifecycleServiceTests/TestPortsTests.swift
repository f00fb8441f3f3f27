import Foundation
import Testing

/// The ports tests give `serve` processes stay free until they bind them.
@Suite("Ports for serve processes")
struct TestPortsTests {
    @Test("ports come from below the ephemeral range, differ from each other, and skip one a listener holds")
    func belowEphemeralRange() async throws {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let low = try #require(text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        let first = try TestPorts.unused()
        let second = try TestPorts.unused()
        #expect(first != second)
        for port in [first, second] {
            #expect(TestPorts.pool().contains(port), "\(port)")
            #expect(port < low || low - TestPorts.poolSize < 1_024, "\(port) is an ephemeral port")
            #expect(TestPorts.isFree(port), "\(port) was handed out while held")
        }
        let receiver = try WebhookReceiver()
        #expect(!TestPorts.isFree(receiver.port), "a port a listener holds is not free")
        await receiver.stop()
    }
}
