import Glibc

/// Tells systemd how `serve` is doing, as `Type=notify` units expect: `READY=1` once the listeners accept
/// connections, `STOPPING=1` when the drain begins (sd_notify(3)). The protocol is one datagram per message
/// on the `AF_UNIX` socket named by `NOTIFY_SOCKET` — a path, or an abstract address written with a leading
/// `@` — so no libsystemd is linked. Without `NOTIFY_SOCKET` (not run by systemd) nothing is sent.
struct ServiceManagerNotifier: Sendable {
    /// `NOTIFY_SOCKET`, nil when unset or empty.
    let socket: String?

    init(environment: [String: String]) {
        socket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Why a message could not be sent, for the one log line that says so.
    enum Failure: Error, CustomStringConvertible {
        /// Neither a path nor `@name` (e.g. `vsock:`, which this service does not speak), or too long for
        /// `sockaddr_un`.
        case unsupportedAddress
        case system(operation: String, errno: Int32)

        var description: String {
            switch self {
            case .unsupportedAddress: "NOTIFY_SOCKET is not an AF_UNIX path or @abstract name that fits sockaddr_un"
            case .system(let operation, let code): "\(operation): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Sends `state` (newline-separated `KEY=VALUE` assignments) when `NOTIFY_SOCKET` is set; false when it
    /// is not. A datagram is delivered whole or not at all.
    func notify(_ state: String) throws(Failure) -> Bool {
        guard let socket else { return false }
        try Self.send(Array(state.utf8), to: socket)
        return true
    }

    static func send(_ message: [UInt8], to socketName: String) throws(Failure) {
        var path = Array(socketName.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        guard abstract || path.first == UInt8(ascii: "/") else { throw .unsupportedAddress }
        // An abstract name starts with a NUL byte and is exactly as long as the address length says; a path
        // is NUL-terminated (unix(7)).
        if abstract { path[0] = 0 } else { path.append(0) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw .unsupportedAddress }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "socket", errno: errno) }
        defer { _ = close(descriptor) }
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    // An unconnected datagram socket raises no SIGPIPE: no flags needed.
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, length)
                }
            }
        }
        guard sent == message.count else { throw .system(operation: "sendto \(socketName)", errno: errno) }
    }
}
