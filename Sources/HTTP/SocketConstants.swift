/// The Linux values of the socket constants Waymark passes to the kernel (HTTP, GRPC, benches).
///
/// glibc declares `SOCK_STREAM`, `SHUT_RDWR` and the `MSG_` flags as enumerators with macros of
/// the same name. libmicrohttpd's and libcurl's headers both include `<sys/socket.h>`, and with
/// three C modules in view Swift's importer found a different subset of these names from one
/// clean build to the next (`SOCK_STREAM` missing in a release build, `SHUT_RDWR` in a debug
/// one). The values are fixed by the Linux ABI, so they are spelled out here once.
package enum SocketConstants {
    /// `SOCK_STREAM`
    package static let stream: Int32 = 1
    /// `SHUT_RDWR`
    package static let shutReadWrite: Int32 = 2
    /// `MSG_DONTWAIT`
    package static let dontWait: Int32 = 0x40
    /// `MSG_NOSIGNAL`
    package static let noSignal: Int32 = 0x4000
    /// `IPPROTO_TCP`
    package static let tcp: Int32 = 6
}
