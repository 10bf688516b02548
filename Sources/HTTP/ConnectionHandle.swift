/// A libmicrohttpd connection pointer that may be handed to another thread.
///
/// `@unchecked Sendable`: off the connection's own MHD thread the pointer is only passed to
/// `MHD_resume_connection`, which libmicrohttpd allows from any thread, and only while the
/// connection is suspended (a suspended connection is neither processed nor freed by MHD). Every
/// other use happens on the connection's MHD thread.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
