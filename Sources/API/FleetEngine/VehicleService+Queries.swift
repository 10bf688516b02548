import Foundation
import Geo
import JSON
import Journey
import ReadModels

extension VehicleService {
    /// A vehicle as the queries see it: its public document and what the internal record adds.
    struct Candidate {
        var key: String
        var document: JSONValue
        /// Passengers of the vehicle's current trips, by trip id.
        var passengers: [String: Int]
        var tripTypes: [String: String]

        var onBoard: Int { passengers.values.reduce(0, +) }
        var maximumCapacity: Int { Int(document["maximumCapacity"]?.int64Value ?? 0) }
        var currentTrips: [String] { document["currentTrips"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        var state: String { document["vehicleState"]?.stringValue ?? "UNKNOWN_VEHICLE_STATE" }
        var category: String { document["vehicleType"]?["category"]?.stringValue ?? "UNKNOWN" }
        var supportedTripTypes: [String] { document["supportedTripTypes"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

        var location: LatLng? {
            guard let point = document["lastLocation"]?["location"] else { return nil }
            // Proto3 JSON omits zero coordinates.
            return LatLng(uncheckedLatitude: point["latitude"]?.doubleValue ?? 0, longitude: point["longitude"]?.doubleValue ?? 0)
        }

        /// When the last location reached the server.
        var locationTime: Timestamp? {
            guard let location = document["lastLocation"] else { return nil }
            return (location["serverTime"]?.stringValue ?? location["updateTime"]?.stringValue).flatMap(Timestamp.init(rfc3339:))
        }

        /// The vehicle's attributes as `key` → text forms of the value.
        var attributes: [String: String] {
            var result: [String: String] = [:]
            for attribute in document["attributes"]?.arrayValue ?? [] {
                guard let key = attribute["key"]?.stringValue else { continue }
                if let text = attribute["stringValue"]?.stringValue {
                    result[key] = text
                } else if let flag = attribute["boolValue"]?.boolValue {
                    result[key] = flag ? "true" : "false"
                } else if let number = attribute["numberValue"]?.doubleValue {
                    result[key] = String(number)
                }
            }
            return result
        }

        func has(key: String, value: String) -> Bool {
            guard let stored = attributes[key] else { return false }
            if stored == value { return true }
            if let a = Double(stored), let b = Double(value) { return a == b }
            return false
        }
    }

    private func candidates(provider: String) async throws(APIError) -> [Candidate] {
        let prefix = "providers/\(provider)/vehicles/"
        let documents = try await readModel.documents(FleetResourceProjection.vehiclesCollection, prefix: prefix, limit: 1_000_000)
        let records = try await readModel.documents(FleetResourceProjection.vehicleStatesCollection, prefix: prefix, limit: 1_000_000)
        var trips: [String: ([String: Int], [String: String])] = [:]
        for (key, record) in records {
            var passengers: [String: Int] = [:]
            var types: [String: String] = [:]
            for trip in record["state"]?["currentTrips"]?.arrayValue ?? [] {
                guard let id = trip["tripId"]?.stringValue else { continue }
                passengers[id] = Int(trip["numberOfPassengers"]?.int64Value ?? 0)
                types[id] = trip["tripType"]?.stringValue ?? ""
            }
            trips[key] = (passengers, types)
        }
        return documents.map { key, document in
            Candidate(key: key, document: document, passengers: trips[key]?.0 ?? [:], tripTypes: trips[key]?.1 ?? [:])
        }
    }

    // MARK: - ListVehicles

    package func list(_ request: ListRequest, caller: Principal) async throws(APIError) -> (vehicles: [JSONValue], nextPageToken: String, totalSize: Int) {
        try caller.requireProvider(request.provider)
        try caller.require([.server, .auditor], to: "list vehicles")
        try await awaitAllOwnWrites()
        guard (0...1000).contains(request.pageSize) else { throw .invalidArgument("pageSize must be within 0..1000 (got \(request.pageSize))") }
        guard !request.vehicleTypeCategories.isEmpty else { throw .invalidArgument("vehicleTypeCategories is required (at least one category)") }
        guard !request.vehicleTypeCategories.contains(.unknown) else { throw .invalidArgument("vehicleTypeCategories must not contain UNKNOWN") }
        if let capacity = request.minimumCapacity, capacity < 0 { throw .invalidArgument("minimumCapacity must be ≥ 0 (got \(capacity))") }
        if let staleness = request.maximumStalenessMicros, staleness <= 0 { throw .invalidArgument("maximumStaleness must be positive") }
        let required = try request.requiredAttributes.map { term throws(APIError) in try Self.term(term, field: "requiredAttributes") }
        let oneOf = try request.requiredOneOfAttributes.map { entry throws(APIError) in try Self.terms(entry, field: "requiredOneOfAttributes") }
        let sets = try request.requiredOneOfAttributeSets.map { entry throws(APIError) in try Self.terms(entry, field: "requiredOneOfAttributeSets") }
        guard required.count <= 50 else { throw .invalidArgument("requiredAttributes may hold at most 50 terms (got \(required.count))") }
        var filterTerms: [(String, String)] = []
        if let filter = request.filter, !filter.trimmingCharacters(in: .whitespaces).isEmpty {
            guard required.isEmpty, oneOf.isEmpty, sets.isEmpty else {
                throw .invalidArgument("filter cannot be combined with requiredAttributes, requiredOneOfAttributes or requiredOneOfAttributeSets")
            }
            filterTerms = try Self.filter(filter)
        }
        let after = try request.pageToken.map { token throws(APIError) in try PageToken.decode(token, scope: "vehicles:\(request.provider)") }
        let categories = Set(request.vehicleTypeCategories.map(\.rawValue))
        let tripTypes = Set(request.tripTypes.map(\.rawValue))
        let now = clock()
        let matching = try await candidates(provider: request.provider).filter { c in
            guard categories.contains(c.category) else { return false }
            if let state = request.vehicleState, state != .unknown, c.state != state.rawValue { return false }
            if let capacity = request.minimumCapacity, c.maximumCapacity < capacity { return false }
            if !tripTypes.isEmpty, tripTypes.isDisjoint(with: c.supportedTripTypes) { return false }
            if request.onTripOnly, c.currentTrips.isEmpty { return false }
            if let staleness = request.maximumStalenessMicros {
                guard let time = c.locationTime, now.microsecondsSinceEpoch - time.microsecondsSinceEpoch <= staleness else { return false }
            }
            if let viewport = request.viewport {
                guard let point = c.location, Self.contains(viewport, point) else { return false }
            }
            guard required.allSatisfy({ c.has(key: $0.0, value: $0.1) }) else { return false }
            guard oneOf.allSatisfy({ entry in entry.contains { c.has(key: $0.0, value: $0.1) } }) else { return false }
            if !sets.isEmpty, !sets.contains(where: { set in set.allSatisfy { c.has(key: $0.0, value: $0.1) } }) { return false }
            return filterTerms.allSatisfy { c.has(key: $0.0, value: $0.1) }
        }
        let pageSize = request.pageSize == 0 ? 100 : request.pageSize
        let remaining = matching.filter { after == nil || $0.key > after! }
        let page = remaining.prefix(pageSize)
        let next = remaining.count > pageSize ? PageToken.encode(page.last!.key, scope: "vehicles:\(request.provider)") : ""
        return (page.map { FleetResourceViews.vehicle($0.document) }, next, matching.count)
    }

    static func term(_ text: String, field: String) throws(APIError) -> (String, String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw .invalidArgument("\(field) terms must be key:value (got \(text.debugDescription))")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    static func terms(_ text: String, field: String) throws(APIError) -> [(String, String)] {
        try text.split(separator: "|", omittingEmptySubsequences: false).map { part throws(APIError) in try term(String(part), field: field) }
    }

    /// Parses the AIP-160 subset ListVehicles accepts: `attributes.<key> = <value>` joined by AND.
    static func filter(_ text: String) throws(APIError) -> [(String, String)] {
        var result: [(String, String)] = []
        for clause in text.components(separatedBy: " AND ") {
            let parts = clause.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].hasPrefix("attributes."), parts[0].count > "attributes.".count else {
                throw .invalidArgument("filter supports only attributes.<key> = \"<value>\" terms joined by AND (got \(clause.debugDescription))")
            }
            var value = parts[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            result.append((String(parts[0].dropFirst("attributes.".count)), value))
        }
        guard result.count <= 50 else { throw .invalidArgument("filter may hold at most 50 restrictions (got \(result.count))") }
        return result
    }

    static func contains(_ viewport: (low: LatLng, high: LatLng), _ point: LatLng) -> Bool {
        guard point.latitude >= viewport.low.latitude, point.latitude <= viewport.high.latitude else { return false }
        if viewport.low.longitude <= viewport.high.longitude {
            return point.longitude >= viewport.low.longitude && point.longitude <= viewport.high.longitude
        }
        return point.longitude >= viewport.low.longitude || point.longitude <= viewport.high.longitude  // crosses the antimeridian
    }

    // MARK: - SearchVehicles

    package func search(_ request: SearchRequest, caller: Principal) async throws(APIError) -> [JSONValue] {
        try caller.requireProvider(request.provider)
        try caller.require([.server, .auditor], to: "search vehicles")
        try await awaitAllOwnWrites()
        guard (400...10_000).contains(request.pickupRadiusMeters) else {
            throw .invalidArgument("pickupRadiusMeters must be within 400..10000 (got \(request.pickupRadiusMeters))")
        }
        guard (1...50).contains(request.count) else { throw .invalidArgument("count must be within 1..50 (got \(request.count))") }
        guard request.minimumCapacity >= 1 else { throw .invalidArgument("minimumCapacity must be ≥ 1 (got \(request.minimumCapacity))") }
        guard request.tripTypes.count == 1, let tripType = request.tripTypes.first, tripType != .unknown else {
            throw .invalidArgument("tripTypes must hold exactly one of SHARED or EXCLUSIVE (got \(request.tripTypes.map(\.rawValue)))")
        }
        if tripType == .shared, request.dropoffPoint == nil {
            throw .invalidArgument("dropoffPoint is required when tripTypes is SHARED")
        }
        guard !request.vehicleTypes.isEmpty, !request.vehicleTypes.contains(.unknown) else {
            throw .invalidArgument("vehicleTypes is required and must not contain UNKNOWN")
        }
        if let staleness = request.maximumStalenessMicros, staleness <= 0 { throw .invalidArgument("maximumStaleness must be positive") }
        if request.includeBackToBack, request.currentTripsPresent != "CURRENT_TRIPS_PRESENT_UNSPECIFIED" {
            throw .invalidArgument("includeBackToBack cannot be combined with currentTripsPresent")
        }
        switch request.orderBy {
        case "PICKUP_POINT_STRAIGHT_DISTANCE":
            break
        case "UNKNOWN_VEHICLE_MATCH_ORDER":
            throw .invalidArgument("orderBy is required")
        default:
            throw APIError(.unimplemented, "orderBy \(request.orderBy) needs a router; this server orders by PICKUP_POINT_STRAIGHT_DISTANCE only")
        }
        var filterTerms: [(String, String)] = []
        if let filter = request.filter, !filter.trimmingCharacters(in: .whitespaces).isEmpty {
            guard request.requiredAttributes.isEmpty, request.requiredOneOfAttributes.isEmpty, request.requiredOneOfAttributeSets.isEmpty else {
                throw .invalidArgument("filter cannot be combined with requiredAttributes, requiredOneOfAttributes or requiredOneOfAttributeSets")
            }
            filterTerms = try Self.filter(filter)
        }
        let now = clock()
        let staleness = request.maximumStalenessMicros ?? 300_000_000
        let categories = Set(request.vehicleTypes.map(\.rawValue))
        func has(_ c: Candidate, _ a: Attribute) -> Bool { c.has(key: a.key, value: a.value.text) }
        var matches: [(distance: Double, candidate: Candidate, matchType: String)] = []
        for c in try await candidates(provider: request.provider) {
            guard c.state == "ONLINE", categories.contains(c.category), c.supportedTripTypes.contains(tripType.rawValue) else { continue }
            guard let point = c.location, let time = c.locationTime,
                  now.microsecondsSinceEpoch - time.microsecondsSinceEpoch <= staleness else { continue }
            let distance = Distance.meters(point, request.pickupPoint)
            guard distance <= Double(request.pickupRadiusMeters) else { continue }
            guard request.requiredAttributes.allSatisfy({ has(c, $0) }),
                  request.requiredOneOfAttributes.allSatisfy({ $0.contains { has(c, $0) } }),
                  request.requiredOneOfAttributeSets.isEmpty || request.requiredOneOfAttributeSets.contains(where: { $0.allSatisfy { has(c, $0) } }),
                  filterTerms.allSatisfy({ c.has(key: $0.0, value: $0.1) }) else { continue }
            if let tripId = request.tripId, c.currentTrips.contains(tripId) { continue }
            guard let matchType = try await matchType(c, tripType: tripType, request: request) else { continue }
            guard c.maximumCapacity - (matchType == "EXCLUSIVE" || matchType == "BACK_TO_BACK" ? 0 : c.onBoard) >= request.minimumCapacity else { continue }
            matches.append((distance, c, matchType))
        }
        matches.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.candidate.key < $1.candidate.key }
        return matches.prefix(request.count).map { match in
            .object(JSONObject([
                ("vehicle", FleetResourceViews.vehicle(match.candidate.document)),
                ("vehiclePickupStraightLineDistanceMeters", .number(JSONNumber(Int(match.distance.rounded())))),
                ("tripType", .string(tripType.rawValue)),
                ("vehicleMatchType", .string(match.matchType)),
                ("requestedOrderedBy", .string(request.orderBy)),
                ("orderedBy", .string(request.orderBy)),
            ]))
        }
    }

    /// How a vehicle could take the trip, or nil when its current trips rule it out.
    private func matchType(_ c: Candidate, tripType: TripType, request: SearchRequest) async throws(APIError) -> String? {
        let trips = c.currentTrips
        switch request.currentTripsPresent {
        case "NONE":
            return trips.isEmpty ? "EXCLUSIVE" : nil
        case "ANY":
            guard trips.count <= 5 else { return nil }
            if trips.isEmpty { return "EXCLUSIVE" }
            return tripType == .shared ? "CARPOOL" : "BACK_TO_BACK"
        default:
            if trips.isEmpty { return "EXCLUSIVE" }
            if tripType == .shared, trips.allSatisfy({ c.tripTypes[$0] == TripType.shared.rawValue }) { return "CARPOOL" }
            guard request.includeBackToBack, c.document["backToBackEnabled"]?.boolValue == true, trips.count == 1,
                  c.tripTypes[trips[0]] == TripType.exclusive.rawValue else { return nil }
            let trip = try await readModel.document(FleetResourceProjection.tripsCollection,
                                                    FleetResourceProjection.tripKey(provider: request.provider, tripId: trips[0]))
            return trip?["tripStatus"]?.stringValue == TripStatus.enrouteToDropoff.rawValue ? "BACK_TO_BACK" : nil
        }
    }
}
