import Foundation
import Glibc
import TestSupport

/// A one-shot raw TCP server on 127.0.0.1 for client tests: accepts one connection, reads the request head,
/// writes a canned response and closes.
final class RawListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        guard Loopback.bind(descriptor), listen(descriptor, 1) == 0, let port = Loopback.boundPort(descriptor) else {
            throw RawConnectionError.socket
        }
        self.port = port
    }

    deinit { Glibc.close(descriptor) }

    func serveOnce(response: String) {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return }
        defer { Glibc.close(client) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            received.append(contentsOf: chunk[0..<count])
        }
        let bytes = Array(response.utf8)
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
