import Foundation
import JSON
import Postgres
import Signing

/// Deterministic vehicle-location payloads shaped like the ones `limits.md` measured PostgreSQL with.
///
/// `data` has the ten members of limits.md's example (vehicle, trip, position with 7 decimals,
/// speed, heading, accuracy, odometer, time, status); its compact text is about 210 bytes here
/// (limits.md's 230 included a space after every `:` and `,`, which `jsonb` drops anyway).
/// The same values feed both the raw COPY ceiling and the event store, so both move the same text.
struct BenchPayload {
    /// The event type of every benchmark event: a declared constant, as stored types must be.
    static let locationType = "BenchVehicleLocationReported"
    /// The event type of the single-append cases (trip-like streams).
    static let tripType = "BenchTripProgressReported"
    /// Small metadata, as in limits.md.
    static let metadata: JSONValue = ["source": "gps-gw-1", "schema": 1]

    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// splitmix64: cheap, deterministic and good enough to vary coordinates.
    private mutating func nextRandom() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func random(upTo bound: UInt64) -> Int { Int(nextRandom() % (bound + 1)) }

    /// The `sequence`-th location report of vehicle `vehicle`.
    mutating func location(vehicle: Int, sequence: Int) -> JSONValue {
        let lat = 523_000_000 + random(upTo: 3_000_000)   // 52.3 + [0, 0.3] degrees, in 1e-7 degrees
        let lon = 131_000_000 + random(upTo: 6_000_000)   // 13.1 + [0, 0.6]
        let speed = random(upTo: 1200)                     // tenths of km/h
        let heading = random(upTo: 359)
        return .object(JSONObject([
            ("vehicle_id", .string("veh-\(vehicle)")),
            ("trip_id", .string("trip-\(vehicle)-\(sequence)")),
            ("lat", Self.decimal(lat, places: 7)),
            ("lon", Self.decimal(lon, places: 7)),
            ("speed_kmh", Self.decimal(speed, places: 1)),
            ("heading", .number(JSONNumber(heading))),
            ("accuracy_m", Self.decimal(42, places: 1)),
            ("odometer_km", Self.decimal(1_234_567, places: 1)),
            ("recorded_at", "2026-05-20T12:34:56.789Z"),
            ("status", "in_service"),
        ]))
    }

    /// `value / 10^places` written with exactly `places` fraction digits (`52.4918280`, `33.0`).
    private static func decimal(_ value: Int, places: Int) -> JSONValue {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let fraction = String(value % scale)
        let lexeme = "\(value / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
        return .number(JSONNumber(lexeme: lexeme)!)
    }

    /// One row of the ceiling table in COPY text format: the columns of `events` that carry data
    /// (stream id, version, event id, type, data, metadata, recorded time, 32-byte hash).
    static func appendCopyRow(streamId: String, version: Int, eventId: UUID, type: String, data: [UInt8],
                              metadata: [UInt8], recordedAt: String, hash: [UInt8], into out: inout [UInt8]) {
        let tab = UInt8(ascii: "\t")
        PostgresText.appendCopyField(streamId, into: &out)
        out.append(tab)
        out.append(contentsOf: String(version).utf8)
        out.append(tab)
        out.append(contentsOf: eventId.uuidString.utf8)
        out.append(tab)
        PostgresText.appendCopyField(type, into: &out)
        out.append(tab)
        PostgresText.appendCopyField(data, into: &out)
        out.append(tab)
        PostgresText.appendCopyField(metadata, into: &out)
        out.append(tab)
        out.append(contentsOf: recordedAt.utf8)
        out.append(tab)
        PostgresText.appendCopyField(PostgresText.hexBytea(hash), into: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// A stand-in for an event hash: SHA-256 of the row's index, so every row carries 32 distinct bytes.
    static func hash(index: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(index).bigEndian) { Digest.sha256(Array($0)) }
    }
}
