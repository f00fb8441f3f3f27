import CShims
import Glibc

/// A plain TCP connection on a non-blocking socket. Writes use `MSG_NOSIGNAL` so a peer that reset the
/// connection yields `EPIPE` instead of killing the process with SIGPIPE.
public final class PlainSocketTransport: ConnectionTransport {
    public let fileDescriptor: Int32
    private var closed = false

    /// Takes ownership of a connected, non-blocking socket.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportIOResult {
        while true {
            let count = Glibc.recv(fileDescriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .transferred(count) }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock(.read)
            default: return .failed(errno)
            }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> TransportIOResult {
        while true {
            let count = Glibc.send(fileDescriptor, bytes.baseAddress, bytes.count, shim_MSG_NOSIGNAL)
            if count >= 0 { return count == 0 ? .wouldBlock(.write) : .transferred(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock(.write)
            default: return .failed(errno)
            }
        }
    }

    public func shutdownWrite() {
        _ = Glibc.shutdown(fileDescriptor, Int32(SHUT_WR))
    }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(fileDescriptor)
    }
}
