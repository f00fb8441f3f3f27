import Glibc

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: bound, never listening, so
/// nothing else can take it. A test that needs "nothing listens here" must not use a stopped server's port
/// instead: in the parallel suite the next listener on an ephemeral port may be given it, and then answers.
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public struct Unavailable: Error {}

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable() }
        guard Loopback.bind(descriptor), let port = Loopback.boundPort(descriptor) else {
            Glibc.close(descriptor)
            throw Unavailable()
        }
        self.descriptor = descriptor
        self.port = port
    }

    deinit { Glibc.close(descriptor) }
}
