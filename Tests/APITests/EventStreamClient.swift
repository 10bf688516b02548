import Foundation
import Postgres
import TestSupport

/// A blocking Server-Sent Events client over a POSIX socket: the tests see the exact events, in
/// order, and whether the server closed the stream.
///
/// `@unchecked Sendable`: one test owns a client and makes one blocking call at a time (moved off
/// the cooperative pool with `Blocking.run`).
final class EventStreamClient: @unchecked Sendable {
    /// One event (or comment) as received.
    struct Event: Sendable, Equatable {
        var id: String?
        var event: String?
        var data: String
        /// True for a comment-only block (a heartbeat).
        var isComment: Bool
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let status: Int
    let headers: [String: String]
    /// The body of a non-stream answer (an error).
    private(set) var errorBody = ""
    private let fd: Int32
    /// Decoded body bytes (chunks joined) not yet parsed into events.
    private var pending: [UInt8] = []
    /// Raw bytes read from the socket and not yet de-chunked.
    private var raw: [UInt8] = []
    private(set) var ended = false
    private var closed = false

    /// Opens `path` (a request target, query included) with the given headers and reads the response head.
    init(port: UInt16, path: String, headers: [(String, String)] = [], timeoutSeconds: Int = 10) throws {
        let fd = try LoopbackSocket.connect(port: port, readTimeoutSeconds: timeoutSeconds)
        self.fd = fd
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else {
                Glibc.close(fd)
                throw Failure(description: "send: errno \(errno)")
            }
            offset += sent
        }
        // Status line and headers.
        var raw: [UInt8] = []
        let separator = Array("\r\n\r\n".utf8)
        var end: Int?
        while end == nil {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else {
                Glibc.close(fd)
                throw Failure(description: "no response head (recv \(count), errno \(errno))")
            }
            raw += chunk[..<count]
            end = Self.find(separator, in: raw)
        }
        let lines = String(decoding: raw[..<end!], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            Glibc.close(fd)
            throw Failure(description: "bad status line \(lines[0])")
        }
        self.status = status
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = fields
        self.raw = Array(raw[(end! + 4)...])
        if status != 200, let length = fields["content-length"].flatMap({ Int($0) }) {
            while self.raw.count < length, readMore() {}
            errorBody = String(decoding: self.raw.prefix(length), as: UTF8.self)
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// The next event or comment block; nil when the server ended the stream (or the read timed out, see `ended`).
    func next() throws -> Event? {
        while true {
            if let block = takeBlock() { return Self.parse(block) }
            if ended { return nil }
            if !dechunk() {
                let count = receive()
                if count > 0 { continue }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw Failure(description: "no event within the read timeout") }
                ended = true
                return nil
            }
        }
    }

    /// The next block that is an event (heartbeat comments skipped); nil at the end of the stream.
    func nextEvent() throws -> Event? {
        while let event = try next() {
            if !event.isComment { return event }
        }
        return nil
    }

    /// Changes how long reads wait before giving up.
    func setTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private func readMore() -> Bool {
        receive() > 0
    }

    /// One `recv` into `raw`: the byte count, 0 at end of stream, -1 on error (see errno).
    private func receive() -> Int {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count > 0 { raw += chunk[..<count] }
        return count
    }

    /// Moves complete chunks from `raw` to `pending`; false when no complete chunk is there.
    private func dechunk() -> Bool {
        var progressed = false
        while let lineEnd = Self.find(Array("\r\n".utf8), in: raw) {
            let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return progressed }
            if size == 0 {
                ended = true
                raw = []
                return true
            }
            let start = lineEnd + 2
            guard raw.count >= start + size + 2 else { return progressed }
            pending += raw[start..<(start + size)]
            raw = Array(raw[(start + size + 2)...])
            progressed = true
        }
        return progressed
    }

    private func takeBlock() -> [UInt8]? {
        guard let end = Self.find([10, 10], in: pending) else { return nil }
        let block = Array(pending[..<end])
        pending = Array(pending[(end + 2)...])
        return block
    }

    private static func parse(_ block: [UInt8]) -> Event {
        var event = Event(id: nil, event: nil, data: "", isComment: true)
        var data: [String] = []
        for line in String(decoding: block, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { continue }
            event.isComment = false
            let (field, value): (Substring, Substring)
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                var rest = line[line.index(after: colon)...]
                if rest.hasPrefix(" ") { rest = rest.dropFirst() }
                value = rest
            } else {
                field = line
                value = ""
            }
            switch field {
            case "id": event.id = String(value)
            case "event": event.event = String(value)
            case "data": data.append(String(value))
            default: continue
            }
        }
        event.data = data.joined(separator: "\n")
        return event
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}

extension TestServer {
    /// The server's port.
    var port: UInt16 { UInt16(baseURL.split(separator: ":").last ?? "0") ?? 0 }

    /// Opens an event stream (off the cooperative pool).
    func openStream(_ path: String, token: String?, headers: [(String, String)] = [], timeoutSeconds: Int = 15) async throws -> EventStreamClient {
        let port = self.port
        let all = headers + (token.map { [("Authorization", "Bearer \($0)")] } ?? [])
        return try await Blocking.run { try EventStreamClient(port: port, path: path, headers: all, timeoutSeconds: timeoutSeconds) }
    }

    /// How many threads the server process has (`Threads:` of /proc/<pid>/status).
    func threadCount() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
              let count = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
        else { throw TestSetupError("no Threads line in /proc/\(process.pid)/status") }
        return count
    }
}

extension EventStreamClient {
    /// The next event, read off the cooperative pool.
    func nextEventAsync() async throws -> Event? {
        try await Blocking.run { try self.nextEvent() }
    }

    /// The next block (event or heartbeat comment), read off the cooperative pool.
    func nextAsync() async throws -> Event? {
        try await Blocking.run { try self.next() }
    }
}
