import Foundation
import Glibc

/// An IPv4 address and port in the form the socket calls take.
///
/// Also finds out why a bind failed, the one raw-socket chore the server needs around
/// libmicrohttpd (MHD only returns NULL).
struct IPv4Endpoint: Sendable {
    let host: String
    let port: UInt16
    let address: sockaddr_in

    /// Parses a dotted IPv4 host; anything else (names, IPv6) is rejected.
    init(host: String, port: UInt16) throws(HTTPError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw HTTPError(.invalidConfiguration, "host must be a dotted IPv4 address such as 127.0.0.1, got \"\(host)\"")
        }
        self.host = host
        self.port = port
        self.address = address
    }

    var description: String { "\(host):\(port)" }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
        }
    }

    /// Tries to bind a throwaway socket the way libmicrohttpd does (with SO_REUSEADDR) and returns
    /// the errno when that fails, or nil when the address can be bound.
    func bindError() -> Int32? {
        let fd = socket(AF_INET, SocketConstants.stream, 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let result = withSocketAddress { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        return result == 0 ? nil : errno
    }
}
