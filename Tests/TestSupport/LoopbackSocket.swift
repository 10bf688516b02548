import Foundation

/// Connects the raw-socket test clients (slow and hostile clients, wire-level HTTP, SSE) to a
/// server on 127.0.0.1.
package enum LoopbackSocket {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`; the caller closes it.
    ///
    /// `receiveBuffer` shrinks the kernel's receive buffer (set before connecting, so the
    /// advertised window stays small); with `readTimeoutSeconds` reads give up after that long.
    package static func connect(port: UInt16, receiveBuffer: Int? = nil, readTimeoutSeconds: Int? = nil) throws(Failure) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let readTimeoutSeconds {
            var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect to port \(port): errno \(code)")
        }
        return fd
    }
}
