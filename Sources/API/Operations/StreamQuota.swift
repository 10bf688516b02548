import Synchronization

/// Caps the streams (journey and driver feed SSE) one token and one client address hold open.
///
/// A stream holds a connection, memory for its unsent bytes and a place in the hub for as long as
/// the client likes, so one leaked token, or one machine, could otherwise open them until the
/// server runs out of descriptors. A stream past either cap is refused with RESOURCE_EXHAUSTED
/// (429 with `Retry-After`) before anything is subscribed; its place is given back when the
/// stream closes. Addresses are the peer's as the HTTP server sees it (a proxy's, behind one).
package final class StreamQuota: Sendable {
    /// Open streams at most per token and per client address; 0: no cap.
    package struct Limits: Sendable {
        package var perToken: Int
        package var perAddress: Int

        package init(perToken: Int = 100, perAddress: Int = 1000) {
            self.perToken = perToken
            self.perAddress = perAddress
        }
    }

    let limits: Limits
    private let open = Mutex<(tokens: [String: Int], addresses: [String: Int])>(([:], [:]))

    package init(_ limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Takes a place for one stream of `token` from `address`; the returned closure gives it back
    /// (call it exactly once, when the stream closes).
    private func admit(token: String, address: String) throws(APIError) -> @Sendable () -> Void {
        let refusal = open.withLock { open -> String? in
            if limits.perToken > 0, open.tokens[token, default: 0] >= limits.perToken {
                return "this token already holds \(limits.perToken) open streams (WAYMARK_STREAMS_PER_TOKEN); close one or retry later"
            }
            if limits.perAddress > 0, !address.isEmpty, open.addresses[address, default: 0] >= limits.perAddress {
                return "this client address already holds \(limits.perAddress) open streams (WAYMARK_STREAMS_PER_ADDRESS); close one or retry later"
            }
            open.tokens[token, default: 0] += 1
            if !address.isEmpty { open.addresses[address, default: 0] += 1 }
            return nil
        }
        if let refusal { throw APIError(.resourceExhausted, refusal) }
        return { [weak self] in
            self?.open.withLock { open in
                open.tokens[token, default: 1] -= 1
                if open.tokens[token] == 0 { open.tokens[token] = nil }
                if !address.isEmpty {
                    open.addresses[address, default: 1] -= 1
                    if open.addresses[address] == 0 { open.addresses[address] = nil }
                }
            }
        }
    }

    /// Opens a stream with `open` while holding a place for it: given back when the stream
    /// closes, or at once when `open` fails.
    func holding<Sink: EventSink>(token: String, address: String, _ open: () async throws(APIError) -> Sink) async throws(APIError) -> Sink {
        let release = try admit(token: token, address: address)
        do {
            let stream = try await open()
            stream.onClose(release)
            return stream
        } catch {
            release()
            throw error
        }
    }

    /// The fast path's `holding`: nil when a cap is reached or `open` gives nil.
    func holding<Sink: EventSink>(token: String, address: String, _ open: () -> Sink?) -> Sink? {
        guard let release = try? admit(token: token, address: address) else { return nil }
        guard let stream = open() else {
            release()
            return nil
        }
        stream.onClose(release)
        return stream
    }
}
