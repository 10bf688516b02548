import CCurl
import Foundation
import Synchronization

/// A minimal outgoing HTTP client over libcurl's easy interface, for webhook deliveries.
///
/// Each request runs `curl_easy_perform` (a blocking call) on a thread of its own, never on the
/// cooperative pool, and resumes the caller when it finishes. The client never follows redirects,
/// speaks only http and https, and can pin the host name to an address that was checked before
/// (so a name cannot resolve to a public address when checked and a private one when connected).
/// Every libcurl pointer stays inside this file.
package enum HTTPClient {
    /// One request.
    package struct Request: Sendable {
        package var url: String
        package var method: String
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]
        /// The whole exchange, connect included.
        package var timeout: Duration
        package var connectTimeout: Duration
        /// Connect to this numeric address instead of resolving the URL's host again.
        package var pinnedAddress: String?

        package init(url: String, method: String = "POST", headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                     timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(5), pinnedAddress: String? = nil) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.connectTimeout = connectTimeout
            self.pinnedAddress = pinnedAddress
        }
    }

    /// The status and the first bytes of the body (at most `maximumBodyBytes`).
    package struct Response: Sendable, Hashable {
        package var status: Int
        package var body: [UInt8]
    }

    /// Answers longer than this are cut (a webhook receiver's answer is only looked at in errors).
    package static let maximumBodyBytes = 4096

    /// Sends `request` and waits for the answer; a transport failure or timeout is an `HTTPError`.
    ///
    /// Cancelling the calling task answers at once with `clientCancelled`; libcurl aborts the
    /// transfer at its next progress callback (within about a second) and the thread ends.
    package static func send(_ request: Request) async throws(HTTPError) -> Response {
        _ = globalInit
        let sink = Sink()
        let answer = Answer()
        let result: Result<Response, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(continuation)
                let thread = Thread { answer.give(perform(request, sink: sink)) }
                thread.name = "waymark-http-client"
                thread.start()
            }
        } onCancel: {
            sink.cancelled.store(true, ordering: .relaxed)
            answer.give(.failure(HTTPError(.clientCancelled, "\(request.method) \(redacted(request.url)) was cancelled")))
        }
        return try result.get()
    }

    /// The one answer of a `send`: whichever comes first of the transfer's end and a cancellation.
    private final class Answer: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<Result<Response, HTTPError>, Never>?, result: Result<Response, HTTPError>?, done: Bool)>((nil, nil, false))

        func wait(_ continuation: CheckedContinuation<Result<Response, HTTPError>, Never>) {
            let ready = state.withLock { state -> Result<Response, HTTPError>? in
                if let result = state.result {
                    state.done = true
                    return result
                }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }

        func give(_ result: Result<Response, HTTPError>) {
            let waiting = state.withLock { state -> CheckedContinuation<Result<Response, HTTPError>, Never>? in
                guard !state.done, state.result == nil else { return nil }
                guard let continuation = state.continuation else {
                    state.result = result
                    return nil
                }
                state.done = true
                state.continuation = nil
                return continuation
            }
            waiting?.resume(returning: result)
        }
    }

    /// `curl_global_init` once per process, before the first handle (it is not thread-safe).
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Collects the answer body (bounded) for the write callback, and carries the cancel flag.
    ///
    /// `@unchecked Sendable`: `bytes` is touched only by the transfer's thread (inside
    /// `curl_easy_perform` and after it); `cancelled` is atomic.
    private final class Sink: @unchecked Sendable {
        var bytes: [UInt8] = []
        let cancelled = Atomic<Bool>(false)
    }

    private static func perform(_ request: Request, sink: Sink) -> Result<Response, HTTPError> {
        guard let handle = curl_easy_init() else { return .failure(HTTPError(.clientFailed, "libcurl could not create a handle")) }
        defer { curl_easy_cleanup(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        var resolveList: UnsafeMutablePointer<curl_slist>?
        defer {
            curl_slist_free_all(headerList)
            curl_slist_free_all(resolveList)
        }
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var body = request.body
        var status = 0
        let code: CURLcode = body.withUnsafeMutableBytes { bodyBytes -> CURLcode in
            func check(_ code: CURLcode) -> Bool { code == CURLE_OK }
            guard check(waymark_curl_setopt_string(handle, CURLOPT_URL, request.url)),
                  check(waymark_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)),
                  check(waymark_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")),
                  // Never through a proxy from the environment (http_proxy, ALL_PROXY...): the address
                  // checks pin the connection to the resolved address, and a proxy would make it elsewhere.
                  check(waymark_curl_setopt_string(handle, CURLOPT_PROXY, "")),
                  check(waymark_curl_setopt_string(handle, CURLOPT_NOPROXY, "*")),
                  check(waymark_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)),
                  check(waymark_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)),
                  check(waymark_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(milliseconds(request.timeout)))),
                  check(waymark_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(milliseconds(request.connectTimeout)))),
                  check(waymark_curl_setopt_write(handle, { data, size, count, context in
                      let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                      let total = size * count
                      let room = max(0, HTTPClient.maximumBodyBytes - sink.bytes.count)
                      if room > 0, let data {
                          data.withMemoryRebound(to: UInt8.self, capacity: total) { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(room, total))) }
                      }
                      return total
                  }, context.toOpaque())),
                  check(waymark_curl_setopt_progress(handle, { context, _, _, _, _ in
                      Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().cancelled.load(ordering: .relaxed) ? 1 : 0
                  }, context.toOpaque()))
            else { return CURLE_FAILED_INIT }
            if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
                guard check(waymark_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, bodyBytes.baseAddress)),
                      check(waymark_curl_setopt_postfieldsize(handle, Int64(bodyBytes.count)))
                else { return CURLE_FAILED_INIT }
            }
            // An empty Expect stops libcurl from waiting for "100 Continue" on larger bodies.
            for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
                headerList = curl_slist_append(headerList, line)
            }
            guard check(waymark_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))) else { return CURLE_FAILED_INIT }
            if let address = request.pinnedAddress, let (host, port) = hostAndPort(request.url) {
                let numeric = address.contains(":") ? "[\(address)]" : address
                resolveList = curl_slist_append(resolveList, "\(host):\(port):\(numeric)")
                guard check(waymark_curl_setopt_pointer(handle, CURLOPT_RESOLVE, UnsafeMutableRawPointer(resolveList))) else { return CURLE_FAILED_INIT }
            }
            let performed = curl_easy_perform(handle)
            if performed == CURLE_OK {
                var answered = 0
                _ = waymark_curl_response_code(handle, &answered)
                status = answered
            }
            return performed
        }
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            let kind: HTTPError.Code = code == CURLE_OPERATION_TIMEDOUT ? .clientTimedOut : .clientFailed
            return .failure(HTTPError(kind, "\(request.method) \(redacted(request.url)) failed: \(reason)"))
        }
        return .success(Response(status: status, body: sink.bytes))
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The URL's host (without brackets) and port (the scheme's default when absent).
    static func hostAndPort(_ url: String) -> (String, Int)? {
        guard let components = URLComponents(string: url), let host = components.host, let scheme = components.scheme?.lowercased() else { return nil }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (bare, components.port ?? (scheme == "https" ? 443 : 80))
    }

    /// The URL without its query (which may carry a receiver's token), for error messages.
    static func redacted(_ url: String) -> String {
        String(url.prefix { $0 != "?" })
    }

    /// The numeric addresses `host` resolves to (IPv4 and IPv6), through the system resolver.
    package static func resolve(host: String) throws(HTTPError) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketConstants.stream
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPError(.clientFailed, "the host \(host) does not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                // Scoped IPv6 addresses come back as "fe80::1%eth0"; the scope does not change the class.
                let address = String(text.prefix { $0 != "%" })
                if !addresses.contains(address) { addresses.append(address) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
