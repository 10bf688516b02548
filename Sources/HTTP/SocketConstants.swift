/// The Linux values of the socket constants this module passes to the kernel.
///
/// glibc declares `SOCK_STREAM`, `SHUT_RDWR` and the `MSG_` flags as enumerators with macros of
/// the same name. libmicrohttpd's and libcurl's headers both include `<sys/socket.h>`, and with
/// three C modules in view Swift's importer found a different subset of these names from one
/// clean build to the next (`SOCK_STREAM` missing in a release build, `SHUT_RDWR` in a debug
/// one). The values are fixed by the Linux ABI, so they are spelled out here once.
enum SocketConstants {
    /// `SOCK_STREAM`
    static let stream: Int32 = 1
    /// `SHUT_RDWR`
    static let shutReadWrite: Int32 = 2
    /// `MSG_DONTWAIT`
    static let dontWait: Int32 = 0x40
    /// `MSG_NOSIGNAL`
    static let noSignal: Int32 = 0x4000
}
