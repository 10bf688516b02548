import API
import Foundation
import JSON
import Postgres
import Synchronization
import Testing
import TestSupport

/// Tokens and small helpers for the black-box API tests.
extension TestServer {
    func token(_ role: Principal.Role, provider: String = "acme", trip: String? = nil, vehicle: String? = nil, consumer: String? = nil,
               ttl: Int64 = 3600, issuedAt: Int64 = Int64(Date().timeIntervalSince1970)) -> String {
        Authenticator.mint(secret: Array(secret.utf8), role: role, provider: provider, tripId: trip, vehicleId: vehicle,
                           consumerId: consumer, issuedAt: issuedAt, ttl: ttl)
    }

    var server: String { token(.server) }

    /// Sends a request and parses the JSON answer.
    func json(_ method: String, _ path: String, _ body: String? = nil, token: String? = nil) async throws -> (Int, JSONValue) {
        let response = try await request(method, path, body: body, token: token ?? server)
        let value = response.body.isEmpty ? JSONValue.null : try JSONValue.parse(response.body)
        return (response.status, value)
    }

    /// Creates an ONLINE EXCLUSIVE+SHARED vehicle at a location. With `keptIsEnough`, a 503 saying
    /// the change was saved (the read model slower than a short consistency timeout) is accepted.
    func createVehicle(_ id: String, provider: String = "acme", latitude: Double = 52.52, longitude: Double = 13.405, capacity: Int = 4,
                       keptIsEnough: Bool = false) async throws {
        let (status, body) = try await json("POST", "/v1/providers/\(provider)/vehicles?vehicleId=\(id)", """
            {"vehicleState":"ONLINE","supportedTripTypes":["EXCLUSIVE","SHARED"],"maximumCapacity":\(capacity),"vehicleType":{"category":"AUTO"},
             "lastLocation":{"location":{"latitude":\(latitude),"longitude":\(longitude)}}}
            """, token: token(.server, provider: provider))
        let kept = keptIsEnough && status == 503 && body["error"]?["status"]?.stringValue == "UNAVAILABLE"
            && (body["error"]?["message"]?.stringValue ?? "").contains("saved")
        try #require(status == 200 || kept, "create vehicle: \(body)")
    }

    func createTrip(_ id: String, provider: String = "acme", extra: String = "") async throws {
        let (status, body) = try await json("POST", "/v1/providers/\(provider)/trips?tripId=\(id)", """
            {"tripType":"EXCLUSIVE","pickupPoint":{"point":{"latitude":52.5,"longitude":13.4}},
             "dropoffPoint":{"point":{"latitude":52.53,"longitude":13.38}}\(extra)}
            """, token: token(.server, provider: provider))
        try #require(status == 200, "create trip: \(body)")
    }

    func updateTrip(_ id: String, mask: String, _ body: String, token: String? = nil) async throws -> (Int, JSONValue) {
        try await json("PUT", "/v1/providers/acme/trips/\(id)?updateMask=\(mask)", body, token: token)
    }
}

/// Polls `condition` every 50 ms for up to `timeout`; whether it held.
func waitFor(_ timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}

/// Asserts Fleet Engine's error shape with the given HTTP status and status name.
func expectError(_ result: (Int, JSONValue), _ status: Int, _ name: String, containing text: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.0 == status, "status \(result.0), body \(result.1)", sourceLocation: sourceLocation)
    #expect(result.1["error"]?["status"]?.stringValue == name, "body \(result.1)", sourceLocation: sourceLocation)
    #expect(result.1["error"]?["code"]?.int64Value == Int64(status), "body \(result.1)", sourceLocation: sourceLocation)
    if let text {
        let message = result.1["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains(text), "message \(message.debugDescription) lacks \(text.debugDescription)", sourceLocation: sourceLocation)
    }
}

/// A flag one task raises and another polls.
final class Latch: Sendable {
    private let state = Mutex(false)
    func open() { state.withLock { $0 = true } }
    var isOpen: Bool { state.withLock { $0 } }
}

/// A transaction another connection keeps open (a table lock, a transaction id) until `release`,
/// or for a minute at most; it is then rolled back.
final class HeldTransaction: Sendable {
    private let released: Latch
    private let holder: Task<Void, any Error>

    private init(released: Latch, holder: Task<Void, any Error>) {
        self.holder = holder
        self.released = released
    }

    /// Runs `statements` on a connection of its own (the caller's `BEGIN` among them) and returns
    /// once they have run, the transaction still open.
    static func open(_ url: String, _ statements: [String]) async throws -> HeldTransaction {
        let opened = Latch(), released = Latch(), ended = Latch()
        let holder = Task.detached {
            defer { ended.open() }
            try await Blocking.run {
                let connection = try Connection(conninfo: url)
                for sql in statements { _ = try connection.execute(sql) }
                opened.open()
                let deadline = Date().addingTimeInterval(60)
                while !released.isOpen && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                _ = try connection.execute("ROLLBACK")
            }
        }
        while !opened.isOpen && !ended.isOpen { try await Task.sleep(for: .milliseconds(10)) }
        if !opened.isOpen { try await holder.value }  // a statement failed: say which
        return HeldTransaction(released: released, holder: holder)
    }

    /// Ends the transaction; rethrows what failed on its connection.
    func release() async throws {
        released.open()
        try await holder.value
    }
}
