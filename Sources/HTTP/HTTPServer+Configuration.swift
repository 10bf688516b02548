extension HTTPServer {
    /// Server settings.
    ///
    /// Read once by `start()`. Library code never reads the environment; the executable maps
    /// `WAYMARK_*` variables onto these fields.
    package struct Configuration: Sendable {
        /// The IPv4 address to bind, dotted (`127.0.0.1`; `0.0.0.0` for every interface).
        package var host: String = "127.0.0.1"
        /// The port to bind; 0 lets the OS choose (read `HTTPServer.port` after `start()`).
        package var port: UInt16 = 8080
        /// libmicrohttpd's internal thread pool size; 1 means one internal epoll thread.
        package var threads: Int = 2
        /// The largest request body accepted; larger bodies are answered 413 (a declared
        /// `Content-Length` at once, a chunked body as soon as it passes the limit).
        package var maxBodyBytes: Int = 1 << 20
        /// Idle or slow clients (headers, body, or not reading a response) are dropped after this
        /// many seconds without progress; 0 disables the timeout. Suspended connections (handler
        /// running, idle stream) do not time out.
        package var connectionTimeoutSeconds: Int = 60
        /// The most connections served at once; further connections are refused by libmicrohttpd.
        package var connectionLimit: Int = 4096
        /// The most connections one client address may hold at once (libmicrohttpd closes more as
        /// they arrive, before any request is read); 0: no limit.
        package var connectionsPerAddress: Int = 0
        /// The most unsent bytes a stream may hold for a client that does not read (beyond what the
        /// kernel's socket buffers take); a write past it drops the stream and closes its
        /// connection. Streams made with their own `maxBufferedBytes` keep theirs.
        package var streamBufferBytes: Int = 1 << 20
        /// libmicrohttpd's memory pool per connection, which holds a request's headers and the
        /// read and write buffers (MHD's own default is 32 KiB). Every open connection, stream or
        /// idle keep-alive, holds one. A request whose headers do not fit is answered 431 by
        /// libmicrohttpd and the connection closed.
        package var connectionMemoryBytes: Int = Configuration.defaultConnectionMemoryBytes
        /// 32 KiB, MHD's own default. 16 KiB saved about 16 KB per open stream, but a request line
        /// of a long query (a SearchVehicles with many attributes) no longer fit, and MHD answers
        /// that itself: 431 with an HTML body and no Content-Type, outside the API's error shape.
        package static let defaultConnectionMemoryBytes = 32 << 10
        /// Renders the errors the server produces itself (413 body too large, 503 shutting down,
        /// 500 for an invalid handler status). A handler that traps takes the process down, so
        /// there is no 500 for that.
        package var errorBody: @Sendable (_ status: Int, _ message: String) -> (contentType: String, body: [UInt8])
        /// Receives libmicrohttpd's own diagnostics (a client gone mid-response, a failed bind), one
        /// line each, on libmicrohttpd's threads; route them to the logger at debug level. nil:
        /// libmicrohttpd writes them to standard error.
        package var diagnostics: (@Sendable (_ message: String) -> Void)?

        /// Settings with the defaults above unless given.
        package init(
            host: String = "127.0.0.1",
            port: UInt16 = 8080,
            threads: Int = 2,
            maxBodyBytes: Int = 1 << 20,
            connectionTimeoutSeconds: Int = 60,
            connectionLimit: Int = 4096,
            connectionsPerAddress: Int = 0,
            streamBufferBytes: Int = 1 << 20,
            connectionMemoryBytes: Int = Configuration.defaultConnectionMemoryBytes,
            errorBody: @escaping @Sendable (_ status: Int, _ message: String) -> (contentType: String, body: [UInt8])
                = Configuration.defaultErrorBody,
            diagnostics: (@Sendable (_ message: String) -> Void)? = nil
        ) {
            self.host = host
            self.port = port
            self.threads = threads
            self.maxBodyBytes = maxBodyBytes
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.connectionLimit = connectionLimit
            self.connectionsPerAddress = connectionsPerAddress
            self.streamBufferBytes = streamBufferBytes
            self.connectionMemoryBytes = connectionMemoryBytes
            self.errorBody = errorBody
            self.diagnostics = diagnostics
        }

        /// `{"error":{"code":413,"message":"..."}}` as `application/json`, the shape of Google API
        /// errors without the status name (the API layer maps names).
        package static func defaultErrorBody(_ status: Int, _ message: String) -> (contentType: String, body: [UInt8]) {
            var out = Array(#"{"error":{"code":\#(status),"message":""#.utf8)
            for scalar in message.unicodeScalars {
                switch scalar {
                case "\"": out += Array(#"\""#.utf8)
                case "\\": out += Array(#"\\"#.utf8)
                case "\n": out += Array(#"\n"#.utf8)
                case "\r": out += Array(#"\r"#.utf8)
                case "\t": out += Array(#"\t"#.utf8)
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                    } else {
                        out += Array(String(scalar).utf8)
                    }
                }
            }
            out += Array(#""}}"#.utf8)
            return ("application/json", out)
        }

        /// Checks the ranges `start()` relies on.
        func validate() throws(HTTPError) {
            guard (1...256).contains(threads) else {
                throw HTTPError(.invalidConfiguration, "threads must be 1...256, got \(threads)")
            }
            guard maxBodyBytes >= 0 else {
                throw HTTPError(.invalidConfiguration, "maxBodyBytes must not be negative, got \(maxBodyBytes)")
            }
            guard (0...Int(UInt32.max)).contains(connectionTimeoutSeconds) else {
                throw HTTPError(.invalidConfiguration, "connectionTimeoutSeconds must be 0...\(UInt32.max), got \(connectionTimeoutSeconds)")
            }
            guard (1...Int(UInt32.max)).contains(connectionLimit) else {
                throw HTTPError(.invalidConfiguration, "connectionLimit must be 1...\(UInt32.max), got \(connectionLimit)")
            }
            guard streamBufferBytes >= 1 else {
                throw HTTPError(.invalidConfiguration, "streamBufferBytes must be at least 1, got \(streamBufferBytes)")
            }
        }
    }
}
