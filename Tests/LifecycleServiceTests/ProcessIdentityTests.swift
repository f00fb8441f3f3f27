import Foundation
import TestSupport
import Testing

@testable import LifecycleEngine

/// `host:pid:start` owners, and telling a live holder from one that is gone.
@Suite("Process identity of lock and lease holders")
struct ProcessIdentityTests {
    @Test("host:pid:start round-trips; the host keeps any colon, other owner forms are not identities")
    func parsing() {
        let identity = ProcessIdentity(host: "db-1.internal", pid: 4242, startMilliseconds: 1_764_400_000_123)
        #expect(identity.description == "db-1.internal:4242:1764400000123")
        #expect(ProcessIdentity(parsing: identity.description) == identity)
        #expect(ProcessIdentity(parsing: "fe80::1:77:5")?.host == "fe80::1")
        for text in ["cli:123", "host::5", ":1:2", "host:-3:5", "a"] {
            #expect(ProcessIdentity(parsing: text) == nil, "\(text)")
        }
    }

    @Test("the start time is field 22 of /proc/PID/stat, counted after the command name however odd it is")
    func statParsing() {
        let fields = (3...22).map { String($0 * 10) }.joined(separator: " ")
        #expect(ProcessIdentity.startTicks(stat: "77 (a) b) c) " + fields + " 230 240") == 220)
        #expect(ProcessIdentity.startTicks(stat: "77 (short) 1 2") == nil)
        #expect(ProcessIdentity.bootTime(stat: "cpu  1 2 3\nbtime 1764400000\nprocesses 9\n") == 1_764_400_000)
    }

    @Test("this process is not gone; a pid that exited is; another host, or another start time, decide as they must")
    func liveness() async throws {
        let current = ProcessIdentity.current
        #expect(current.pid == getpid())
        #expect(!current.isGone)
        var reused = current
        reused.startMilliseconds -= 60_000
        #expect(reused.isGone, "the same pid with another start time is another process")
        var elsewhere = current
        elsewhere.host = "some-other-host"
        elsewhere.startMilliseconds -= 60_000
        #expect(!elsewhere.isGone, "nothing is known about another host's processes")

        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        let exit = try ProcessExit.start(child)
        let pid = child.processIdentifier
        _ = await exit.wait()
        let exited = ProcessIdentity(host: current.host, pid: pid, startMilliseconds: current.startMilliseconds)
        #expect(exited.isGone)
    }
}
