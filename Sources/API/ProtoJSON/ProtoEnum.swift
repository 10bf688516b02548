import JSON

/// One Fleet Engine enum: names and numbers (reference §2.4).
///
/// Requests may give enums by name or by number; responses use names, or numbers when the
/// request asked for `$alt=json;enum-encoding=int`.
struct ProtoEnum: Sendable {
    let values: [(name: String, number: Int)]

    func number(of name: String) -> Int? { values.first { $0.name == name }?.number }
    func name(of number: Int) -> String? { values.first { $0.number == number }?.name }
    var listing: String { values.map(\.name).joined(separator: ", ") }

    static let tripStatus = ProtoEnum(values: [
        ("UNKNOWN_TRIP_STATUS", 0), ("NEW", 1), ("ENROUTE_TO_PICKUP", 2), ("ARRIVED_AT_PICKUP", 3), ("ENROUTE_TO_DROPOFF", 4),
        ("COMPLETE", 5), ("CANCELED", 6), ("ARRIVED_AT_INTERMEDIATE_DESTINATION", 7), ("ENROUTE_TO_INTERMEDIATE_DESTINATION", 8),
    ])
    static let tripType = ProtoEnum(values: [("UNKNOWN_TRIP_TYPE", 0), ("SHARED", 1), ("EXCLUSIVE", 2)])
    static let tripView = ProtoEnum(values: [("TRIP_VIEW_UNSPECIFIED", 0), ("SDK", 1), ("JOURNEY_SHARING_V1S", 2)])
    static let waypointType = ProtoEnum(values: [
        ("UNKNOWN_WAYPOINT_TYPE", 0), ("PICKUP_WAYPOINT_TYPE", 1), ("DROP_OFF_WAYPOINT_TYPE", 2), ("INTERMEDIATE_DESTINATION_WAYPOINT_TYPE", 3),
    ])
    static let vehicleState = ProtoEnum(values: [("UNKNOWN_VEHICLE_STATE", 0), ("OFFLINE", 1), ("ONLINE", 2)])
    static let navigationStatus = ProtoEnum(values: [
        ("UNKNOWN_NAVIGATION_STATUS", 0), ("NO_GUIDANCE", 1), ("ENROUTE_TO_DESTINATION", 2), ("OFF_ROUTE", 3), ("ARRIVED_AT_DESTINATION", 4),
    ])
    static let locationSensor = ProtoEnum(values: [
        ("UNKNOWN_SENSOR", 0), ("GPS", 1), ("NETWORK", 2), ("PASSIVE", 3), ("ROAD_SNAPPED_LOCATION_PROVIDER", 4),
        ("CUSTOMER_SUPPLIED_LOCATION", 5), ("FLEET_ENGINE_LOCATION", 6), ("FUSED_LOCATION_PROVIDER", 100), ("CORE_LOCATION", 200),
    ])
    static let polylineFormatType = ProtoEnum(values: [("UNKNOWN_FORMAT_TYPE", 0), ("LAT_LNG_LIST_TYPE", 1), ("ENCODED_POLYLINE_TYPE", 2)])
    static let speed = ProtoEnum(values: [("SPEED_UNSPECIFIED", 0), ("NORMAL", 1), ("SLOW", 2), ("TRAFFIC_JAM", 3)])
    static let roadStretchStyle = ProtoEnum(values: [("STYLE_UNSPECIFIED", 0), ("SLOWER_TRAFFIC", 1), ("TRAFFIC_JAM", 2)])
    static let vehicleCategory = ProtoEnum(values: [
        ("UNKNOWN", 0), ("AUTO", 1), ("TAXI", 2), ("TRUCK", 3), ("TWO_WHEELER", 4), ("BICYCLE", 5), ("PEDESTRIAN", 6),
    ])
    static let vehicleMatchOrder = ProtoEnum(values: [
        ("UNKNOWN_VEHICLE_MATCH_ORDER", 0), ("PICKUP_POINT_ETA", 1), ("PICKUP_POINT_DISTANCE", 2), ("DROPOFF_POINT_ETA", 3),
        ("PICKUP_POINT_STRAIGHT_DISTANCE", 4), ("COST", 5),
    ])
    static let currentTripsPresent = ProtoEnum(values: [("CURRENT_TRIPS_PRESENT_UNSPECIFIED", 0), ("NONE", 1), ("ANY", 2)])
    static let vehicleMatchType = ProtoEnum(values: [
        ("UNKNOWN", 0), ("EXCLUSIVE", 1), ("BACK_TO_BACK", 2), ("CARPOOL", 3), ("CARPOOL_BACK_TO_BACK", 4),
    ])
    static let sdkType = ProtoEnum(values: [("SDK_TYPE_UNSPECIFIED", 0), ("CONSUMER", 1), ("DRIVER", 2), ("JAVASCRIPT", 3)])
    static let platform = ProtoEnum(values: [("PLATFORM_UNSPECIFIED", 0), ("ANDROID", 1), ("IOS", 2), ("WEB", 3)])

    /// Response fields holding enums, by JSON name. Only string values are rewritten, so a
    /// name shared with a numeric field (`speed` in `VehicleLocation`) is safe.
    static let responseFields: [String: ProtoEnum] = [
        "tripStatus": tripStatus, "tripType": tripType, "view": tripView, "waypointType": waypointType,
        "vehicleState": vehicleState, "navigationStatus": navigationStatus, "locationSensor": locationSensor,
        "rawLocationSensor": locationSensor, "supplementalLocationSensor": locationSensor, "speed": speed,
        "style": roadStretchStyle, "category": vehicleCategory, "supportedTripTypes": tripType,
        "vehicleMatchType": vehicleMatchType, "requestedOrderedBy": vehicleMatchOrder, "orderedBy": vehicleMatchOrder,
    ]

    /// `value` with every enum name replaced by its number (`$alt=json;enum-encoding=int`).
    static func numbered(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(numbered))
        case .object(let object):
            return .object(JSONObject(object.map { member -> (String, JSONValue) in
                if let table = responseFields[member.key] {
                    return (member.key, number(member.value, table))
                }
                return (member.key, numbered(member.value))
            }))
        default:
            return value
        }
    }

    private static func number(_ value: JSONValue, _ table: ProtoEnum) -> JSONValue {
        switch value {
        case .string(let name):
            return table.number(of: name).map { .number(JSONNumber($0)) } ?? value
        case .array(let elements):
            return .array(elements.map { number($0, table) })
        default:
            return value
        }
    }
}
