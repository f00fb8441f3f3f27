import Glibc

/// The socket calls of tests that open raw TCP sockets on 127.0.0.1 (a client that stalls, a listener that
/// never answers, a port probe), so each of them does not spell out its own `sockaddr_in`.
public enum Loopback {
    /// Binds `descriptor` to 127.0.0.1:`port` (0: a port the kernel picks); false with `errno` set on failure.
    public static func bind(_ descriptor: Int32, port: Int = 0) -> Bool {
        withAddress(port: port) { Glibc.bind(descriptor, $0, $1) == 0 }
    }

    /// Connects `descriptor` to 127.0.0.1:`port`; false with `errno` set on failure.
    public static func connect(_ descriptor: Int32, port: Int) -> Bool {
        withAddress(port: port) { Glibc.connect(descriptor, $0, $1) == 0 }
    }

    /// The port `descriptor` is bound to, or nil.
    public static func boundPort(_ descriptor: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        return named ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    private static func withAddress(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
