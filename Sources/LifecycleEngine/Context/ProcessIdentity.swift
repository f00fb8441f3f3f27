import Foundation

/// Who holds a lease or writes a heartbeat: `host:pid:start`, where `start` is when the process started, in
/// milliseconds since the epoch, as the kernel records it (`/proc/<pid>/stat` field 22, `starttime`, after
/// the boot time `btime` of `/proc/stat`; proc(5)). The start time tells a process apart from a later one
/// that got the same pid, so a lock whose holder ran on this host can be taken over the moment that process
/// is gone, instead of after its lease (``isGone``).
public struct ProcessIdentity: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var pid: Int32
    public var startMilliseconds: Int64

    public init(host: String, pid: Int32, startMilliseconds: Int64) {
        self.host = host
        self.pid = pid
        self.startMilliseconds = startMilliseconds
    }

    public var description: String { "\(host):\(pid):\(startMilliseconds)" }

    /// This process, computed once.
    public static let current: ProcessIdentity = {
        let pid = getpid()
        // Without /proc (not Linux) the time of this first use stands in; such an owner is never taken over.
        let start = startTime(of: pid) ?? Int64(Date().timeIntervalSince1970 * 1000)
        return ProcessIdentity(host: ProcessInfo.processInfo.hostName, pid: pid, startMilliseconds: start)
    }()

    /// Reads `host:pid:start`; nil for an owner written some other way (e.g. by an older build). The host is
    /// everything before the last two fields, so a host name is never cut.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0,
            let start = Int64(parts[parts.count - 1])
        else { return nil }
        let host = parts.dropLast(2).joined(separator: ":")
        guard !host.isEmpty else { return nil }
        self.init(host: host, pid: pid, startMilliseconds: start)
    }

    /// Start times read twice from the kernel agree to its clock tick; `btime` is whole seconds and has been
    /// seen to move by one when the clock is stepped, so two readings within this many milliseconds are the
    /// same process. A pid is not reused that fast.
    static let startToleranceMilliseconds: Int64 = 2_000

    /// True only when this identity ran on this host and that process no longer exists: its pid is unused
    /// (`kill(pid, 0)` fails with `ESRCH`), or it now belongs to a process that started at another time.
    /// False when it may still run — another host, or a start time that cannot be read.
    public var isGone: Bool {
        guard host == ProcessIdentity.current.host else { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        guard let start = Self.startTime(of: pid) else { return false }
        return abs(start - startMilliseconds) > Self.startToleranceMilliseconds
    }

    /// When `pid` started, in milliseconds since the epoch, from `/proc`; nil when it cannot be read.
    static func startTime(of pid: Int32) -> Int64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let ticks = startTicks(stat: stat),
            let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let boot = bootTime(stat: system)
        else { return nil }
        let perSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard perSecond > 0 else { return nil }
        return boot * 1000 + ticks * 1000 / perSecond
    }

    /// Field 22 (`starttime`) of a `/proc/<pid>/stat` line. The command name (field 2) is in parentheses and
    /// may hold spaces and parentheses itself, so fields are counted after the last `)`.
    static func startTicks(stat: String) -> Int64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: field 3 (state) is fields[0], so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return Int64(fields[19])
    }

    /// The `btime` line of `/proc/stat`: boot time in seconds since the epoch.
    static func bootTime(stat: String) -> Int64? {
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Int64(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
