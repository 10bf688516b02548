/// Every operation the REST surface serves, recognized from method and path.
enum Route: Sendable, Hashable {
    case healthz, readyz, metrics, openAPI
    case createTrip(provider: String)
    case searchTrips(provider: String)
    case getTrip(provider: String, tripId: String)
    case updateTrip(provider: String, tripId: String)
    case deleteTrip(provider: String, tripId: String)
    case reportBillableTrip(provider: String, tripId: String)
    case createVehicle(provider: String)
    case listVehicles(provider: String)
    case searchVehicles(provider: String)
    case reportLocations(provider: String)
    case getVehicle(provider: String, vehicleId: String)
    case updateVehicle(provider: String, vehicleId: String)
    case deleteVehicle(provider: String, vehicleId: String)
    case updateVehicleAttributes(provider: String, vehicleId: String)

    /// The operation name, used as the `route` label in metrics and access logs.
    var label: String {
        switch self {
        case .healthz: "healthz"
        case .readyz: "readyz"
        case .metrics: "metrics"
        case .openAPI: "openapi"
        case .createTrip: "CreateTrip"
        case .searchTrips: "SearchTrips"
        case .getTrip: "GetTrip"
        case .updateTrip: "UpdateTrip"
        case .deleteTrip: "DeleteTrip"
        case .reportBillableTrip: "ReportBillableTrip"
        case .createVehicle: "CreateVehicle"
        case .listVehicles: "ListVehicles"
        case .searchVehicles: "SearchVehicles"
        case .reportLocations: "ReportLocations"
        case .getVehicle: "GetVehicle"
        case .updateVehicle: "UpdateVehicle"
        case .deleteVehicle: "DeleteVehicle"
        case .updateVehicleAttributes: "UpdateVehicleAttributes"
        }
    }

    /// Whether the operation needs a bearer token.
    var needsAuth: Bool {
        switch self {
        case .healthz, .readyz, .metrics, .openAPI: false
        default: true
        }
    }

    /// Whether the operation reads a JSON body.
    var hasBody: Bool {
        switch self {
        case .createTrip, .searchTrips, .updateTrip, .reportBillableTrip, .createVehicle, .searchVehicles, .updateVehicle, .updateVehicleAttributes,
             .reportLocations: true
        default: false
        }
    }

    /// The route for a request, or NOT_FOUND / METHOD_NOT_ALLOWED naming what was wrong.
    static func match(method: String, path: String) throws(APIError) -> Route {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        func only(_ allowed: [String: Route]) throws(APIError) -> Route {
            if let route = allowed[method] { return route }
            if method == "HEAD", let route = allowed["GET"] { return route }
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: \(allowed.keys.sorted().joined(separator: ", ")))")
        }
        switch segments.count {
        case 1:
            switch segments[0] {
            case "healthz": return try only(["GET": .healthz])
            case "readyz": return try only(["GET": .readyz])
            case "metrics": return try only(["GET": .metrics])
            case "openapi.json": return try only(["GET": .openAPI])
            default: break
            }
        case 4 where segments[0] == "v1" && segments[1] == "providers" && !segments[2].isEmpty:
            let provider = segments[2]
            switch segments[3] {
            case "trips": return try only(["POST": .createTrip(provider: provider)])
            case "trips:search": return try only(["POST": .searchTrips(provider: provider)])
            case "vehicles": return try only(["POST": .createVehicle(provider: provider), "GET": .listVehicles(provider: provider)])
            case "vehicles:search": return try only(["POST": .searchVehicles(provider: provider)])
            case "vehicles:reportLocations": return try only(["POST": .reportLocations(provider: provider)])
            default: break
            }
        case 5 where segments[0] == "v1" && segments[1] == "providers" && !segments[2].isEmpty && !segments[4].isEmpty:
            let provider = segments[2]
            let id = segments[4]
            switch segments[3] {
            case "trips":
                return try only(["GET": .getTrip(provider: provider, tripId: id), "PUT": .updateTrip(provider: provider, tripId: id),
                                 "DELETE": .deleteTrip(provider: provider, tripId: id)])
            case "vehicles":
                if id.hasSuffix(":updateAttributes"), id.count > ":updateAttributes".count {
                    return try only(["POST": .updateVehicleAttributes(provider: provider, vehicleId: String(id.dropLast(":updateAttributes".count)))])
                }
                return try only(["GET": .getVehicle(provider: provider, vehicleId: id), "PUT": .updateVehicle(provider: provider, vehicleId: id),
                                 "DELETE": .deleteVehicle(provider: provider, vehicleId: id)])
            case "billableTrips" where id.hasSuffix(":report") && id.count > ":report".count:
                return try only(["POST": .reportBillableTrip(provider: provider, tripId: String(id.dropLast(":report".count)))])
            default: break
            }
        default:
            break
        }
        throw .notFound("no operation at \(path)")
    }
}
