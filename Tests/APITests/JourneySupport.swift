import API
import Foundation
import JSON
import Testing
import TestSupport

/// Helpers for the rider endpoint tests: a trip in progress, journey reads that wait for the
/// journey projection (it is eventually consistent with the writes), location reports.
extension TestServer {
    /// Vehicle `vehicle` and trip `trip` (rider `consumer` when given), assigned and ENROUTE_TO_PICKUP,
    /// with the journey view showing the vehicle.
    func startTrip(_ trip: String = "t-1", vehicle: String = "v-1", consumer: String? = nil) async throws {
        try await createVehicle(vehicle)
        try await createTrip(trip, extra: consumer.map { #","consumerId":"\#($0)""# } ?? "")
        let (status, body) = try await updateTrip(trip, mask: "vehicleId,tripStatus", #"{"vehicleId":"\#(vehicle)","tripStatus":"ENROUTE_TO_PICKUP"}"#)
        try #require(status == 200, "assign: \(body)")
        _ = try await journeyView(trip) { $0["tripStatus"]?.stringValue == "ENROUTE_TO_PICKUP" }
    }

    /// GET the journey (raw response).
    func journey(_ trip: String, provider: String = "acme", token: String? = nil, query: String = "", headers: [String: String] = [:]) async throws -> Response {
        try await request("GET", "/v1/providers/\(provider)/trips/\(trip)/journey\(query)", token: token ?? server, headers: headers)
    }

    /// The journey view once `until` holds (polls for up to 20 s: the journey projection trails the writes).
    @discardableResult
    func journeyView(_ trip: String, token: String? = nil, until: (JSONValue) -> Bool = { _ in true },
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let deadline = ContinuousClock.now + .seconds(20)
        var last = "no answer"
        while ContinuousClock.now < deadline {
            let response = try await journey(trip, token: token)
            if response.status == 200, let view = try? JSONValue.parse(response.body), until(view) { return view }
            last = "\(response.status) \(response.text.prefix(300))"
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the journey of \(trip) did not reach the expected state within 20 s (last: \(last))", sourceLocation: sourceLocation)
        throw TestSetupError("journey of \(trip) not ready")
    }

    /// Reports a location of `vehicle` (UpdateVehicle lastLocation).
    func report(_ vehicle: String = "v-1", latitude: Double, longitude: Double = 13.405) async throws {
        let (status, body) = try await json("PUT", "/v1/providers/acme/vehicles/\(vehicle)?updateMask=lastLocation",
                                            #"{"lastLocation":{"location":{"latitude":\#(latitude),"longitude":\#(longitude)},"heading":90}}"#)
        try #require(status == 200, "report: \(body)")
    }

    /// Moves trip `trip` through the statuses to COMPLETE.
    func completeTrip(_ trip: String = "t-1") async throws {
        for status in ["ARRIVED_AT_PICKUP", "ENROUTE_TO_DROPOFF", "COMPLETE"] {
            let (code, body) = try await updateTrip(trip, mask: "tripStatus", #"{"tripStatus":"\#(status)"}"#)
            try #require(code == 200, "\(status): \(body)")
        }
    }
}

extension TestServer.Response {
    /// The body as JSON (null when empty or not JSON).
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
}

/// The version of a view (or -1).
func version(_ view: JSONValue) -> Int64 { view["version"]?.int64Value ?? -1 }

/// The latitude of the vehicle marker of a view.
func vehicleLatitude(_ view: JSONValue) -> Double? {
    view["markers"]?.arrayValue?.first { $0["type"]?.stringValue == "TRIP_VEHICLE" }?["position"]?["latitude"]?.doubleValue
}

/// The rider endpoint suites, run one test at a time: each test starts a server (the stream tests
/// open thousands of connections), and running them all at once beside the rest of the suite
/// starves the 2-core machines they run on.
@Suite(.serialized) enum RiderEndpoints {}
