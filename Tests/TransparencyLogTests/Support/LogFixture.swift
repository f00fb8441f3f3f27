import LifecycleCrypto
import TestSupport
import TransparencyLog

/// A log published by ``LogPublisher`` into a fresh directory: the shape `reports/<app>/log/` will have.
struct LogFixture {
    static let origin = "reports.example/demo-app/log"

    let directory: TemporaryDirectory
    let signer: NoteSigner
    let publisher: LogPublisher
    var entries: [[UInt8]] = []
    /// Every checkpoint the log published, in order.
    var checkpoints: [SignedCheckpoint] = []

    init(key: Ed25519PrivateKey? = nil) throws {
        directory = try TemporaryDirectory(prefix: "tlog-test")
        signer = try NoteSigner(name: Self.origin, privateKey: try key ?? Ed25519PrivateKey.generate())
        publisher = LogPublisher(directory: directory.path, origin: Self.origin, signer: signer)
    }

    var path: String { directory.path }
    var store: DirectoryTileStore { publisher.store }
    var auditor: LogAuditor {
        LogAuditor(directory: directory.path, origin: Self.origin, trusting: [signer.verifierKey])
    }

    /// Appends `count` entries that look like manifest lines and deletion outcomes (no personal data).
    @discardableResult
    mutating func append(_ count: Int) throws -> LogPublisher.Appended {
        let new = (0..<count).map { offset in
            let index = entries.count + offset
            return Array(
                "{\"kind\":\"\(index % 3 == 0 ? "manifest" : "deletion")\",\"seq\":\(index),\"subject\":\"p-\(String(index * 7919, radix: 16))\"}"
                    .utf8)
        }
        let appended = try publisher.append(new)
        entries += new
        checkpoints.append(appended.checkpoint)
        return appended
    }

    func read(_ path: String) throws -> [UInt8] { try store.read(path)! }

    func write(_ path: String, _ bytes: [UInt8]) throws { try store.write(path, bytes) }
}
