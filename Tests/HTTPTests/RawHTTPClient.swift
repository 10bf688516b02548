import Foundation
import HTTP
import TestSupport

/// A minimal blocking HTTP/1.1 client over a POSIX socket, so tests see exact wire behaviour
/// (status line, headers, chunk boundaries, whether the server closed the connection).
///
/// `@unchecked Sendable`: a client is used by one test, one blocking call at a time (calls are
/// moved off the cooperative pool with `blocking`, but never overlap).
final class RawHTTPClient: @unchecked Sendable {
    /// A response as read off the wire.
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to 127.0.0.1:`port`; reads give up after `timeoutSeconds`.
    init(port: UInt16, timeoutSeconds: Int = 10) throws {
        fd = try LoopbackSocket.connect(port: port, readTimeoutSeconds: timeoutSeconds)
    }

    deinit { close() }

    /// True when a TCP connection to 127.0.0.1:`port` can be made right now.
    static func canConnect(port: UInt16) -> Bool {
        (try? RawHTTPClient(port: port, timeoutSeconds: 1)) != nil
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// The bytes of one request with `Host` and, when there is a body, `Content-Length`.
    static func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    /// Sends one request and reads its response.
    func exchange(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> Response {
        try send(Self.request(method, target, headers: headers, body: body))
        return try readResponse()
    }

    /// Reads a whole response: `Content-Length`, chunked, or until the server closes.
    func readResponse() throws -> Response {
        var response = try readHead()
        if (response.headers["Transfer-Encoding"] ?? "").lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else if let length = response.headers["Content-Length"].flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads the status line and headers only.
    func readHead() throws -> Response {
        let headBytes = try readUntil(Array("\r\n\r\n".utf8))
        let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let statusLine = lines.first else { throw Failure(description: "empty response head") }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure(description: "bad status line: \(statusLine)")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header line: \(line)") }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Response(status: status, headers: headers, body: [])
    }

    /// Reads one chunk of a chunked body; nil for the final zero-size chunk (trailers skipped).
    func readChunk() throws -> [UInt8]? {
        let sizeLine = String(decoding: try readUntil(Array("\r\n".utf8)), as: UTF8.self)
        guard let size = Int(sizeLine.split(separator: ";")[0].trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw Failure(description: "bad chunk size line: \(sizeLine)")
        }
        if size == 0 {
            while try !readUntil(Array("\r\n".utf8)).isEmpty {}
            return nil
        }
        let data = try readExactly(size)
        guard try readExactly(2) == Array("\r\n".utf8) else { throw Failure(description: "chunk not followed by CRLF") }
        return data
    }

    /// True when the server closes the connection (EOF or reset) within the receive timeout
    /// without sending anything more.
    /// Changes how long reads wait before giving up.
    func setTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func serverClosed() -> Bool {
        guard buffer.isEmpty else { return false }
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, 0)
        if received == 0 { return true }
        if received < 0 { return errno == ECONNRESET }
        buffer.append(byte)
        return false
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if received == 0 { throw Failure(description: "connection closed by server") }
        if received < 0 { throw Failure(description: "recv: errno \(errno)") }
        buffer += chunk[..<received]
    }

    private func readUntil(_ delimiter: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = firstRange(of: delimiter) {
                let head = Array(buffer[..<range.lowerBound])
                buffer.removeFirst(range.upperBound)
                return head
            }
            try fill()
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    private func readToEnd() throws -> [UInt8] {
        while true {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received <= 0 { break }
            buffer += chunk[..<received]
        }
        defer { buffer = [] }
        return buffer
    }

    private func firstRange(of delimiter: [UInt8]) -> Range<Int>? {
        guard buffer.count >= delimiter.count else { return nil }
        for start in 0...(buffer.count - delimiter.count) where buffer[start] == delimiter[0] {
            if Array(buffer[start..<(start + delimiter.count)]) == delimiter { return start..<(start + delimiter.count) }
        }
        return nil
    }
}
