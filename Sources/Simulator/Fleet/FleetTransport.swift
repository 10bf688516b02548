import JSON

/// How a simulated fleet reaches a server: one authenticated HTTP request at a time.
///
/// The executable implements it over HTTP with a server token (as a fleet's backend would);
/// tests can record requests instead. Status 0 means the request never got an answer.
package protocol FleetTransport: Sendable {
    func send(_ method: String, _ path: String, body: JSONValue?) async -> FleetResponse
}

/// The answer to one request: HTTP status (0 when there was none) and the parsed body (null when not JSON).
package struct FleetResponse: Sendable {
    package var status: Int
    package var body: JSONValue

    package init(status: Int, body: JSONValue) {
        self.status = status
        self.body = body
    }

    package var isSuccess: Bool { (200..<300).contains(status) }
}
