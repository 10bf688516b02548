internal import CMicroHTTPD
import Foundation
import Synchronization

// The C callbacks handed to libmicrohttpd. They are plain functions that capture nothing (a
// capturing closure crashes the 6.3.1 compiler instead of being rejected, limits.md G5); all state
// arrives through `cls` pointers: the ServerCore for the daemon, a RequestContext in `*con_cls`
// per request, a StreamBinding per streamed response.

/// MHD's access handler, called several times per request: once with the headers, once per piece
/// of body, then with an empty body once the request is complete, and once more after each resume.
///
/// The response is never queued on the first call unless the request is refused outright (413 by
/// Content-Length, 503 while shutting down): queuing there costs keep-alive (limits.md G8).
func accessHandler(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let limit = core.configuration.maxBodyBytes

    guard let existing = requestContext.pointee else {
        // First call: headers only.
        let headers = HTTPHeaders(connectionValues(connection, kind: .HEADER_KIND))
        // Path and query are percent-decoded by libmicrohttpd; bytes that are not UTF-8 are
        // refused, not repaired into U+FFFD (an id would silently become another id).
        let path = url.flatMap { String(validatingCString: $0) }
        let query = connectionValues(connection, kind: .GET_ARGUMENT_KIND, strict: true)
        let context = RequestContext(
            connection: ConnectionHandle(pointer: connection),
            method: method.map { String(cString: $0) } ?? "",
            path: path ?? url.map { String(cString: $0) } ?? "",
            query: query ?? [],
            headers: headers,
            clientAddress: clientAddress(connection),
            started: .now
        )
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        if core.draining.load(ordering: .acquiring) {
            return core.queueError(503, "the server is shutting down", for: context, on: connection, close: true)
        }
        if path == nil || query == nil {
            return core.queueError(400, "the request's \(path == nil ? "path" : "query string") is not valid UTF-8 once percent-decoded",
                                   for: context, on: connection, close: true)
        }
        if let declared = headers["Content-Length"].flatMap({ UInt64($0) }), declared > UInt64(limit) {
            return core.queueError(413, "the request body of \(declared) bytes exceeds the limit of \(limit) bytes",
                                   for: context, on: connection, close: true)
        }
        return .YES
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    let size = uploadDataSize.pointee
    if size > 0 {
        // A piece of body: keep it, or count it once over the limit.
        uploadDataSize.pointee = 0
        context.receivedBytes += size
        if context.receivedBytes > limit {
            // libmicrohttpd 0.9.75 refuses to queue a response while body data is arriving, so the
            // rest of the body is counted and discarded and the 413 is queued once it is complete.
            // A client that keeps sending far past the limit gets the 413 written directly and
            // the connection closed.
            context.tooLarge = true
            context.body = []
            if context.receivedBytes > limit + ServerCore.discardAllowance {
                return core.abortTooLarge(context, on: connection)
            }
            return .YES
        }
        if let uploadData {
            if context.body.isEmpty, let declared = context.headers["Content-Length"].flatMap({ Int($0) }) {
                context.body.reserveCapacity(declared)
            }
            context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: size))
        }
        return .YES
    }

    // The request is complete (first time here), or the connection was resumed.
    enum Step {
        case dispatch
        case queue(HTTPResponse)
        case stillRunning
        case done
    }
    let step = context.phase.withLock { phase -> Step in
        switch phase {
        case .receiving:
            return .dispatch
        case .running:
            // Not resumed by us (cannot happen): wait again rather than spin.
            MHD_suspend_connection(connection)
            return .stillRunning
        case .ready(let response):
            phase = .answered
            return .queue(response)
        case .answered:
            return .stillRunning
        case .finished:
            return .done
        }
    }
    switch step {
    case .dispatch:
        if context.tooLarge {
            return core.queueError(413, "the request body exceeds the limit of \(limit) bytes", for: context, on: connection, close: true)
        }
        context.countedInFlight = true
        core.inFlight.add(1, ordering: .relaxed)
        let request = context.takeRequest()
        // The fast path: an answer from memory is queued right here, with no Task and no suspension.
        if let immediate = core.handler.respondImmediately(to: request) {
            return core.queue(immediate, for: context, on: connection)
        }
        if core.dispatch(context, request: request, on: connection) { return .YES }
        return core.queueError(503, "the server is shutting down", for: context, on: connection, close: true)
    case .queue(let response):
        return core.queue(response, for: context, on: connection)
    case .stillRunning:
        return .YES
    case .done:
        return .NO
    }
}

/// MHD's request-completed notification: reports the exchange and releases the request context.
func requestCompleted(
    _ cls: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ termination: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext, let existing = requestContext.pointee else { return }
    requestContext.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeRetainedValue()
    core.complete(context, termination: termination)
}

/// MHD's content reader for streamed responses.
func readStream(_ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int) -> Int {
    guard let cls, let buffer else { return MHD_CONTENT_READER_END_WITH_ERROR }
    let binding = Unmanaged<StreamBinding>.fromOpaque(cls).takeUnretainedValue()
    return binding.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

/// MHD's free callback for streamed responses: the stream is over; drop the binding.
func releaseStream(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let binding = Unmanaged<StreamBinding>.fromOpaque(cls).takeRetainedValue()
    binding.core.unregisterStream(binding.stream)
    binding.stream.detach()
}

/// Every value of one kind (headers, query arguments) in the order MHD received them; bytes
/// that are not UTF-8 become U+FFFD.
func connectionValues(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
    var collected = CollectedValues(strict: false)
    withUnsafeMutablePointer(to: &collected) { pointer in
        _ = MHD_get_connection_values(connection, kind, collectValue, UnsafeMutableRawPointer(pointer))
    }
    return collected.values
}

/// The same, but nil when a name or value is not valid UTF-8.
func connectionValues(_ connection: OpaquePointer, kind: MHD_ValueKind, strict: Bool) -> [(name: String, value: String)]? {
    var collected = CollectedValues(strict: strict)
    withUnsafeMutablePointer(to: &collected) { pointer in
        _ = MHD_get_connection_values(connection, kind, collectValue, UnsafeMutableRawPointer(pointer))
    }
    return collected.invalid ? nil : collected.values
}

private struct CollectedValues {
    let strict: Bool
    var values: [(name: String, value: String)] = []
    var invalid = false
}

/// MHD's key-value iterator: appends to the `CollectedValues` `cls` points to.
private func collectValue(
    _ cls: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collected = cls.assumingMemoryBound(to: CollectedValues.self)
    if collected.pointee.strict {
        guard let name = String(validatingCString: key), let text = value.map({ String(validatingCString: $0) }) ?? "" else {
            collected.pointee.invalid = true
            return .NO
        }
        collected.pointee.values.append((name: name, value: text))
    } else {
        collected.pointee.values.append((name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
    }
    return .YES
}

/// MHD's external logger: formats the message and hands it to `configuration.diagnostics`.
func logDiagnostic(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    guard let diagnostics = core.configuration.diagnostics else { return }
    var buffer = [CChar](repeating: 0, count: 1024)
    _ = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
    var message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while message.last?.isNewline == true { message.removeLast() }
    diagnostics(message)
}

/// The connection's peer address as text, "" when libmicrohttpd does not know it.
private func clientAddress(_ connection: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    guard waymark_mhd_client_address(connection, &buffer, socklen_t(buffer.count)) == 1 else { return "" }
    let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: text, as: UTF8.self)
}
