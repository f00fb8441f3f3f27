import Foundation
import Glibc
import TestSupport

/// Many plain TCP connections to one loopback port, opened, written and read with blocking system calls on a
/// thread of their own: ten thousand sockets must not occupy the cooperative pool that every other test (and
/// the in-process servers of other tests) runs on. Closed with an abortive close (`SO_LINGER` 0, a RST), so
/// they leave no `TIME_WAIT` behind to use up the ephemeral ports of the tests that run beside this one.
final class ConnectionHerd: @unchecked Sendable {
    enum HerdError: Error, CustomStringConvertible {
        case socket(Int32)
        case connect(index: Int, errno: Int32)

        var description: String {
            switch self {
            case .socket(let code): "socket(2) failed: \(String(cString: strerror(code)))"
            case .connect(let index, let code):
                "connect(2) of connection \(index) failed: \(String(cString: strerror(code)))"
            }
        }
    }

    let port: Int
    /// Touched only on the herd's own thread (every method hops there), hence the unchecked `Sendable`.
    private var descriptors: [Int32] = []

    init(port: Int) {
        self.port = port
    }

    /// Runs `work` on a new thread and returns its result, without blocking a cooperative thread meanwhile.
    private func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Opens `count` connections (a 10 s receive timeout on each, so no read can hang the test).
    func open(_ count: Int) async throws {
        try await onOwnThread { try self.openBlocking(count) }
    }

    private func openBlocking(_ count: Int) throws {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        descriptors.reserveCapacity(descriptors.count + count)
        for index in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw HerdError.socket(errno) }
            guard Loopback.connect(descriptor, port: port) else {
                let code = errno
                Glibc.close(descriptor)
                throw HerdError.connect(index: index, errno: code)
            }
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            descriptors.append(descriptor)
        }
    }

    /// Sends `request` on the connections in `range` (all of them by default); how many took all of it.
    @discardableResult
    func send(_ request: String, on range: Range<Int>? = nil) async throws -> Int {
        try await onOwnThread {
            let bytes = Array(request.utf8)
            var sent = 0
            for descriptor in self.descriptors[range ?? self.descriptors.indices] {
                let written = bytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written == bytes.count { sent += 1 }
            }
            return sent
        }
    }

    /// Reads one response on every connection, after a request was sent on each: how many answered `status`.
    /// The response is read up to the end of its `Content-Length` body, so the connection is idle afterwards.
    func readResponses(expecting status: Int) async throws -> Int {
        try await onOwnThread {
            var matched = 0
            var chunk = [UInt8](repeating: 0, count: 4096)
            for descriptor in self.descriptors {
                var received: [UInt8] = []
                while !Self.isComplete(received) {
                    let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    received += chunk[0..<count]
                }
                if Self.isComplete(received), received.starts(with: Array("HTTP/1.1 \(status) ".utf8)) {
                    matched += 1
                }
            }
            return matched
        }
    }

    /// How many connections the server still holds open: a non-blocking read finds nothing to read (rather
    /// than an end of stream or a reset).
    func openCount() async throws -> Int {
        try await onOwnThread {
            var open = 0
            var byte: UInt8 = 0
            for descriptor in self.descriptors {
                let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { open += 1 }
            }
            return open
        }
    }

    /// Resets and forgets every connection.
    func close() async {
        _ = try? await onOwnThread {
            for descriptor in self.descriptors { Glibc.close(descriptor) }
            self.descriptors.removeAll()
        }
    }

    /// A whole response head and as many body bytes as its `Content-Length` says.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(terminator) })
        else { return false }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return bytes.count - (end + 4) >= length
    }
}
