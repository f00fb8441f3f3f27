import Foundation
import Glibc
import HTTP1
import Synchronization
import TestSupport

/// A blocking TCP client that sends raw bytes, so tests can put exactly the octets a rule is about on the
/// wire, and reads raw responses back. Reads block a dedicated thread, never the cooperative pool the server's
/// handlers run on.
final class RawConnection: Sendable {
    let descriptor: Int32

    /// The descriptor is stored only once connected: a class whose initializer throws after every stored
    /// property is set still runs `deinit`, which would close the descriptor a second time — by then possibly
    /// the number of a socket another test just opened (a PostgreSQL connection once failed with "Bad file
    /// descriptor" that way, next to a test connecting to a server that had stopped).
    ///
    /// The default receive timeout is long because the server's handlers share the test process with the rest of
    /// the suite: a full `make test` run once held every test of the process for about 12 s, and a 5 s timeout
    /// then read no answer to a request the server accepts. Every read that waits it out is a failing one
    /// (tests that expect a close get it early), so the length costs passing runs nothing.
    init(port: Int, receiveTimeout: Duration = .seconds(30)) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawConnectionError.socket }
        guard Loopback.connect(descriptor, port: port) else {
            let code = errno
            Glibc.close(descriptor)
            throw RawConnectionError.connect(code)
        }
        self.descriptor = descriptor
        let nanoseconds =
            receiveTimeout.components.seconds * 1_000_000 + receiveTimeout.components.attoseconds / 1_000_000_000_000
        var interval = timeval(tv_sec: Int(nanoseconds / 1_000_000), tv_usec: Int(nanoseconds % 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(descriptor) }

    /// Sends everything; returns false if the peer reset or closed the connection first.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    func shutdownWrite() { Glibc.shutdown(descriptor, Int32(SHUT_WR)) }

    /// Reads until the server closes the connection (or the receive timeout passes).
    private func readUntilCloseBlocking() -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: chunk[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                return (received, true)
            } else if errno == EINTR {
                continue
            } else {
                return (received, false)
            }
        }
    }

    private let pending = Mutex<[UInt8]>([])

    /// Runs a blocking read on its own thread.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    func readResponse(head isHead: Bool = false) async -> RawResponse? {
        await offPool { self.readResponseBlocking(head: isHead) }
    }

    func readUntilClose() async -> (bytes: [UInt8], closed: Bool) {
        await offPool { self.readUntilCloseBlocking() }
    }

    func isClosedByServer() async -> Bool {
        await offPool { self.isClosedByServerBlocking() }
    }

    /// Reads exactly one response: head, then a Content-Length body (none for HEAD or 1xx). Nil on EOF/timeout.
    private func readResponseBlocking(head isHead: Bool) -> RawResponse? {
        var pending = self.pending.withLock { $0 }
        defer { self.pending.withLock { $0 = pending } }
        while true {
            if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                let headText = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                var lines = headText.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst()
                let status = Int(statusLine.split(separator: " ")[1]) ?? 0
                var headers: [RawResponse.Header] = []
                for line in lines {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers.append(
                        RawResponse.Header(
                            name: String(parts[0]),
                            value: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""))
                }
                let length =
                    isHead || status < 200
                    ? 0 : Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
                let bodyStart = end.upperBound
                while pending.count < bodyStart + length {
                    guard fill(&pending) else { return nil }
                }
                let body = Array(pending[bodyStart..<(bodyStart + length)])
                pending.removeSubrange(0..<(bodyStart + length))
                return RawResponse(statusLine: statusLine, status: status, headers: headers, body: body)
            }
            guard fill(&pending) else { return nil }
        }
    }

    private func fill(_ pending: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        pending.append(contentsOf: chunk[0..<count])
        return true
    }

    /// True when the server has closed: a read returns EOF (or reset) within the receive timeout.
    private func isClosedByServerBlocking() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }
}

enum RawConnectionError: Error {
    case socket
    case connect(Int32)
}

struct RawResponse: Sendable {
    let statusLine: String
    let status: Int
    let headers: [Header]

    struct Header: Sendable {
        let name: String
        let value: String
    }
    let body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
