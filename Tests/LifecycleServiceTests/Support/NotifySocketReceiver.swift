import Foundation
import Glibc

/// The service manager's side of sd_notify(3) for a test: an `AF_UNIX` datagram socket of the test's own,
/// bound to a path or an abstract name, whose address is what systemd would put in `NOTIFY_SOCKET`.
final class NotifySocketReceiver: Sendable {
    /// What to put in `NOTIFY_SOCKET`: the path, or `@name` for an abstract address.
    let address: String
    private let descriptor: Int32

    /// Binds `path` (a file path, or `@name` for the abstract namespace).
    init(_ address: String) throws {
        self.address = address
        var path = Array(address.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 } else { path.append(0) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        guard path.count <= MemoryLayout.size(ofValue: socketAddress.sun_path) else { throw Failure.tooLong }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        // Stored only once bound: a class whose throwing initializer has set every stored property runs
        // `deinit`, which would close the descriptor a second time (and unlink a path it never bound).
        let opened = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard opened >= 0 else { throw Failure.system("socket", errno) }
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(opened, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            _ = close(opened)
            throw Failure.system("bind", code)
        }
        descriptor = opened
    }

    deinit {
        _ = close(descriptor)
        if !address.hasPrefix("@") { unlink(address) }
    }

    enum Failure: Error {
        case tooLong
        case system(String, Int32)
    }

    /// The next datagram's text, or nil when none arrives within `timeout`. Waits on a thread of its own so
    /// no concurrency thread of the test process blocks.
    func receive(timeout: Duration) async -> String? {
        let descriptor = self.descriptor
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return await withCheckedContinuation { continuation in
            Thread {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, milliseconds) == 1 else { return continuation.resume(returning: nil) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                continuation.resume(returning: count < 0 ? nil : String(decoding: buffer[0..<count], as: UTF8.self))
            }.start()
        }
    }
}
