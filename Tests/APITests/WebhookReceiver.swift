import API
import Foundation
import JSON
import Synchronization

/// A tiny HTTP/1.1 listener on 127.0.0.1 that plays a webhook receiver for the tests.
///
/// Each connection is served on a thread of its own, so a delayed or hanging answer never holds
/// back another delivery. `behaviour` decides each answer from the delivery and how many times
/// this event id was received before (0 for the first time).
final class WebhookReceiver: Sendable {
    /// How to answer one delivery.
    enum Answer: Sendable {
        case status(Int)
        /// Answer after `seconds`.
        case delayed(Double, Int)
        /// Never answer (the connection stays open until the receiver stops).
        case hang
    }

    /// One received request.
    struct Delivery: Sendable {
        let headers: [String: String]  // lowercased names
        let body: [UInt8]
        let json: JSONValue
        let receivedAt: ContinuousClock.Instant

        var eventId: String { json["eventId"]?.stringValue ?? "" }
        var streamId: String { json["streamId"]?.stringValue ?? "" }
        var streamVersion: Int64 { json["streamVersion"]?.int64Value ?? -1 }
        var type: String { json["type"]?.stringValue ?? "" }
        var globalPosition: Int64 { json["globalPosition"]?.int64Value ?? -1 }
    }

    let port: Int
    private let socket: Int32
    private let behaviour: @Sendable (Delivery, Int) -> Answer
    private let state = Mutex<(deliveries: [Delivery], seen: [String: Int], stopped: Bool, open: [Int32])>(([], [:], false, []))

    init(_ behaviour: @escaping @Sendable (Delivery, Int) -> Answer = { _, _ in .status(200) }) throws {
        self.behaviour = behaviour
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ReceiverError("socket failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 128) == 0 else { throw ReceiverError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        socket = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    func stop() {
        state.withLock { state in
            state.stopped = true
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        shutdown(socket, Int32(SHUT_RDWR))  // wakes accept(); the accept loop closes the socket
    }

    /// Waits until `condition` holds for the deliveries so far, or `timeout` passes.
    func wait(timeout: Duration = .seconds(30), until condition: ([Delivery]) -> Bool) async -> [Delivery] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = deliveries
            if condition(now) { return now }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return deliveries
    }

    private func acceptLoop() {
        while true {
            let client = accept(socket, nil, nil)
            if client < 0 {
                if state.withLock({ $0.stopped }) {
                    close(socket)
                    return
                }
                continue
            }
            state.withLock { $0.open.append(client) }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        // Closed under the lock and forgotten, so `stop()` never shuts down a number the process reused.
        defer {
            state.withLock { state in
                state.open.removeAll { $0 == fd }
                close(fd)
            }
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return }
            buffer.append(contentsOf: chunk[0..<n])
            if headerEnd == nil, let range = findHeaderEnd(buffer) {
                headerEnd = range
                let head = String(decoding: buffer[0..<range], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let end = headerEnd, buffer.count >= end + 4 + contentLength { break }
        }
        let end = headerEnd!
        var headers: [String: String] = [:]
        for line in String(decoding: buffer[0..<end], as: UTF8.self).split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = Array(buffer[(end + 4)..<(end + 4 + contentLength)])
        let delivery = Delivery(headers: headers, body: body, json: (try? JSONValue.parse(body)) ?? .null, receivedAt: .now)
        let before = state.withLock { state -> Int in
            let count = state.seen[delivery.eventId, default: 0]
            state.seen[delivery.eventId] = count + 1
            return count
        }
        let answer = behaviour(delivery, before)
        let status: Int
        switch answer {
        case .status(let code): status = code
        case .delayed(let seconds, let code):
            Thread.sleep(forTimeInterval: seconds)
            status = code
        case .hang:
            while !state.withLock({ $0.stopped }) { Thread.sleep(forTimeInterval: 0.05) }
            return
        }
        // Recorded only when answered 2xx: what the receiver accepted.
        if (200..<300).contains(status) { state.withLock { $0.deliveries.append(delivery) } }
        let response = "HTTP/1.1 \(status) X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        _ = response.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    }

    private func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
        return nil
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
