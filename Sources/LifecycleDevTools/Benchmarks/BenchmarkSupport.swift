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

    /// The process's peak resident set size so far: `ru_maxrss` of getrusage(2), in KiB on Linux.
    static func peakResidentKiB() -> Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
