import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What every `lifecycle bench` run shares: where it works, how its times and its memory are measured.
enum BenchmarkSupport {
    /// `--keep DIR` (created when missing, so the benchmark's files have somewhere to go), or a fresh temporary
    /// directory the caller removes.
    static func workDirectory(_ kept: String?) throws -> String {
        guard let kept else { return try makeTemporaryDirectory() }
        do {
            try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        } catch {
            throw BenchmarkError("--keep \(kept): cannot create the directory; name a writable one")
        }
        return kept
    }

    static func makeTemporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-bench-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The process's peak resident set size since ``resetPeakResident()``, in KiB: `VmHWM` of
    /// `/proc/self/status`. Not `ru_maxrss` of getrusage(2), which cannot be reset: a process started by a large
    /// one (a test runner, an IDE) begins with its parent's resident size as its peak, so a small benchmark
    /// started from one would report its parent's memory. `ru_maxrss` where `/proc` is not there.
    static func peakResidentKiB() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kibibytes = Int(
                line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        {
            return kibibytes
        }
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)
    }

    /// Resets the peak resident set size to the current one (`5` to `/proc/self/clear_refs`, Linux 4.0 and
    /// later), so that ``peakResidentKiB()`` measures this benchmark and not what the process inherited.
    static func resetPeakResident() {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }
}
