import Foundation
import HTTP1
import HTTPServer
import LifecycleCore
import TestSupport
import Testing

/// An outside opinion on the TLS listener: Debian's `testssl.sh` scans it for protocols and cipher categories.
/// The scanner is optional on a developer machine; when it is missing the test says so and records nothing.
@Suite("testssl.sh scan of the HTTPS listener")
struct TestsslScanTests {
    /// `testssl` (Debian's name) or `testssl.sh`, from PATH.
    static var scanner: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["testssl", "testssl.sh"] {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    @Test(
        "testssl finds no SSLv3, TLS 1.0 or 1.1 and no suite without forward secrecy",
        .enabled(if: scanner != nil, "testssl.sh is not installed (Debian package 'testssl.sh')"),
        // The scan keeps both cores busy for ~15 s; `make test` runs it on its own after the main suite so
        // it cannot starve timing-sensitive tests.
        .enabled(
            if: ProcessInfo.processInfo.environment["LIFECYCLE_TESTSSL"] == "1",
            "set LIFECYCLE_TESTSSL=1 (make test does)"),
        .timeLimit(.minutes(2)))
    func scan() async throws {
        let scanner = try #require(Self.scanner)
        let fixture = try TLSFixture()
        let context = try fixture.context()
        let report = fixture.directory.file("testssl.json")
        try await withServer(testConfiguration { $0.transport = .tls(context) }) { _, port in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: scanner)
            process.arguments = [
                "--quiet", "--color", "0", "--warnings", "off", "--jsonfile", report, "--protocols", "--std",
                "--cipher-per-proto",
                "--fs", "127.0.0.1:\(port)",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let status = await (try ProcessExit.start(process)).wait()
            _ = status  // testssl's exit status counts findings of any severity; the JSON below is the verdict.
        }
        let findings = try Self.findings(in: report)
        #expect(!findings.isEmpty, "testssl wrote no findings")
        for protocolID in ["SSLv2", "SSLv3", "TLS1", "TLS1_1"] {
            let finding = findings[protocolID] ?? "missing"
            #expect(finding.hasPrefix("not offered"), "\(protocolID): \(finding)")
        }
        #expect(findings["TLS1_2"]?.hasPrefix("offered") == true, "TLS1_2: \(findings["TLS1_2"] ?? "missing")")
        #expect(findings["TLS1_3"]?.hasPrefix("offered") == true, "TLS1_3: \(findings["TLS1_3"] ?? "missing")")
        // Weak categories; testssl 3.0 calls the CBC/no-FS middle ground AVERAGE, 3.1+ OBSOLETED and STRONG_NOFS.
        for category in ["NULL", "aNULL", "EXPORT", "LOW", "3DES_IDEA", "AVERAGE", "OBSOLETED", "STRONG_NOFS"] {
            guard let finding = findings["cipherlist_\(category)"] else { continue }
            #expect(finding.hasPrefix("not offered"), "cipherlist_\(category): \(finding)")
        }
        #expect(findings["cipherlist_NULL"] != nil, "testssl ran no cipher categories")
        // --cipher-per-proto lists every suite the server accepts: each must use ECDH(E) and an AEAD cipher.
        let offered = findings.filter { $0.key.hasPrefix("cipher-") }
        #expect(offered.count >= 3, "testssl listed \(offered.count) suites")
        for (id, finding) in offered {
            #expect(finding.contains(" ECDH "), "\(id) is not forward-secret: \(finding)")
            #expect(finding.contains("AESGCM") || finding.contains("ChaCha20"), "\(id) is not AEAD: \(finding)")
        }
        let forwardSecrecy = findings["FS"] ?? findings["PFS"] ?? "missing"
        #expect(forwardSecrecy.hasPrefix("offered"), "forward secrecy: \(forwardSecrecy)")
    }

    /// testssl's --jsonfile: an array of {"id", "severity", "finding", …}; id → finding.
    static func findings(in file: String) throws -> [String: String] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        guard case .array(let entries) = try JSONValue.parse(bytes) else { return [:] }
        var result: [String: String] = [:]
        for case .object(let entry) in entries {
            if case .string(let id)? = entry["id"], case .string(let finding)? = entry["finding"] {
                result[id] = finding
            }
        }
        return result
    }
}
