import API
import Foundation
import HTTP
import JSON
import Simulator

/// `waymark serve --demo`: the rider's journey page at `/demo`, a route group of the REST handler.
///
/// Serves the page (HTML, CSS and plain JavaScript embedded in the binary; nothing from the
/// internet, no map tiles), the synthetic city's streets for its background, the demo
/// provider's active trips, and tokens for the page: a consumer token for one trip and a driver
/// token for the car serving it. Tokens are minted for the demo provider only, and only by a
/// server started with `--demo`. Without `--demo` it serves only the rider page (`/demo/rider`
/// and its script and styles), the page share links point to; every other `/demo` path is 404.
/// The REST handler passes it only `/demo` and paths under `/demo/`.
package struct DemoRoutes: RouteGroup {
    let api: WaymarkAPI
    let provider: String
    let secret: [UInt8]
    let cityBytes: [UInt8]

    /// - Parameters:
    ///   - secret: the server's HS256 secret, to mint the page's tokens.
    ///   - citySeed: the seed of the synthetic city the simulator drives (`waymark simulate --seed`).
    /// Whether this server runs the demo (`--demo`): the trip list, the city and minted tokens.
    /// Without it only the rider page itself is served, the page share links point to.
    let demo: Bool

    package init(api: WaymarkAPI, provider: String = "demo", secret: [UInt8], citySeed: UInt64, demo: Bool = true) {
        self.demo = demo
        self.api = api
        self.provider = provider
        self.secret = secret
        cityBytes = demo ? SyntheticCity(seed: citySeed).json.compactBytes() : []
    }

    package var segment: String { "demo" }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.error(405, "UNIMPLEMENTED", "\(request.method) is not allowed on \(request.path) (allowed: GET)")
        }
        if !demo && !["/demo/rider", "/demo/demo.js", "/demo/demo.css"].contains(request.path) {
            return Self.error(404, "NOT_FOUND", "\(request.path) is served only by `waymark serve --demo` (this server serves the rider page of share links, /demo/rider)")
        }
        switch request.path {
        case "/demo", "/demo/", "/demo/rider":
            return Self.file(PackageResources.demo_html, type: "text/html; charset=utf-8")
        case "/demo/demo.js":
            return Self.file(PackageResources.demo_js, type: "text/javascript; charset=utf-8")
        case "/demo/demo.css":
            return Self.file(PackageResources.demo_css, type: "text/css; charset=utf-8")
        case "/demo/city.json":
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")], body: .bytes(cityBytes))
        case "/demo/trips":
            return await activeTrips()
        case "/demo/token":
            return await token(tripId: request.query.first { $0.name == "trip" }?.value ?? "")
        default:
            return Self.error(404, "NOT_FOUND", "no demo page at \(request.path)")
        }
    }

    var serverPrincipal: Principal { Principal(role: .server, provider: provider, subject: "demo-page") }

    /// `{"provider", "trips": [{"tripId", "tripStatus", "vehicleId", "tripType"}]}`: the provider's trips under way.
    func activeTrips() async -> HTTPResponse {
        do throws(APIError) {
            let found = try await api.trips.search(.init(provider: provider, activeTripsOnly: true, pageSize: 200), caller: serverPrincipal)
            let trips: [JSONValue] = found.trips.map { trip in
                [
                    "tripId": .string(trip["name"]?.stringValue?.split(separator: "/").last.map(String.init) ?? ""),
                    "tripStatus": trip["tripStatus"] ?? .null, "vehicleId": trip["vehicleId"] ?? .null, "tripType": trip["tripType"] ?? .null,
                ]
            }
            return Self.json(["provider": .string(provider), "trips": .array(trips)])
        } catch {
            return Self.error(error.code.httpStatus, error.code.statusName, error.message)
        }
    }

    /// `{"provider", "tripId", "token", "vehicleId", "driverToken"}` for a trip of the demo provider (404 for others).
    func token(tripId: String) async -> HTTPResponse {
        guard !tripId.isEmpty else { return Self.error(400, "INVALID_ARGUMENT", "trip is required (query parameter)") }
        do throws(APIError) {
            let trip = try await api.trips.get(.init(provider: provider, tripId: tripId), caller: serverPrincipal)
            let now = Int64(Date().timeIntervalSince1970)
            let consumer = Authenticator.mint(secret: secret, role: .consumer, provider: provider, tripId: tripId, issuedAt: now, ttl: 3600)
            var members: [(String, JSONValue)] = [("provider", .string(provider)), ("tripId", .string(tripId)), ("token", .string(consumer))]
            if let vehicle = trip["vehicleId"]?.stringValue, !vehicle.isEmpty {
                members.append(("vehicleId", .string(vehicle)))
                members.append(("driverToken", .string(Authenticator.mint(secret: secret, role: .driver, provider: provider, vehicleId: vehicle, issuedAt: now, ttl: 3600))))
            }
            return Self.json(.object(JSONObject(members)))
        } catch {
            return Self.error(error.code.httpStatus, error.code.statusName, error.message)
        }
    }

    static func file(_ bytes: [UInt8], type: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-cache")], body: .bytes(bytes))
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")], body: .bytes(value.compactBytes()))
    }

    /// Fleet Engine's error shape, as the REST handler writes it.
    static func error(_ status: Int, _ name: String, _ message: String) -> HTTPResponse {
        json(["error": ["code": .number(JSONNumber(status)), "message": .string(message), "status": .string(name)]], status: status)
    }
}
