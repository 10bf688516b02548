/// What libmicrohttpd's content-reader callbacks get as `cls` for a streamed response.
///
/// Retained for the lifetime of the MHD response and released by its free callback, which is also
/// where the stream learns that MHD is done with it.
final class StreamBinding: Sendable {
    let stream: HTTPStream
    let core: ServerCore

    init(stream: HTTPStream, core: ServerCore) {
        self.stream = stream
        self.core = core
    }
}
