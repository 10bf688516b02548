import Foundation
@testable import GRPC
import JSON
import Protobuf
import Testing

/// The protobuf codec against request bytes the official Python client sent (from
/// `shared/reference/fleetengine-capture.jsonl`, gRPC frame prefix removed): decoding gives the
/// proto3 JSON the REST readers take, and encoding that JSON gives the same bytes back.
@Suite struct ProtobufCodecTests {
    static let schema = FleetEngineSchema.schema

    /// The message of a base64 gRPC frame from the capture.
    static func message(_ base64: String) -> [UInt8] {
        Array(Data(base64Encoded: base64)!.dropFirst(5))
    }

    static let captured: [(rpc: String, frame: String)] = [
        ("CreateTrip", "AAAAAKgKNgoFZW4tVVMSAlVTGgU5LjkuOSICMTQqBVBpeGVsMAJIAVIGR29vZ2xlWCJiCXRyYWNlLWFiYxoMcHJvdmlkZXJzL3AxIlwgAioUChIJvHSTGAS2QkAR/mX35GGFXsA6FAoSCSh+jLlrsUJAEZoIG55ehV7AUAJyFAoSCRSuR+F6tEJAEYXrUbgehV7AchQKEgkzMzMzM7NCQBEUrkfheoRewCoCdDE="),
        ("GetTrip", "AAAAABkaFXByb3ZpZGVycy9wMS90cmlwcy90MVgC"),
        ("UpdateTrip", "AAAAAH4aFXByb3ZpZGVycy9wMS90cmlwcy90MSITGAh4AcoBDAil69zKBhCAjI2eAipQCgt0cmlwX3N0YXR1cwoeaW50ZXJtZWRpYXRlX2Rlc3RpbmF0aW9uX2luZGV4CiFpbnRlcm1lZGlhdGVfZGVzdGluYXRpb25zX3ZlcnNpb24="),
        ("UpdateTrip", "AAAAADsaFXByb3ZpZGVycy9wMS90cmlwcy90MSIAKiAKHmludGVybWVkaWF0ZV9kZXN0aW5hdGlvbl9pbmRleA=="),
        ("SearchTrips", "AAAAAFgKNgoFZW4tVVMSAlVTGgU5LjkuOSICMTQqBVBpeGVsMAJIAVIGR29vZ2xlWCJiCXRyYWNlLWFiYxoMcHJvdmlkZXJzL3AxIgJ2MSgBMApCCAgeEIDKte4B"),
        ("CreateVehicle", "AAAAAHcKNgoFZW4tVVMSAlVTGgU5LjkuOSICMTQqBVBpeGVsMAJIAVIGR29vZ2xlWCJiCXRyYWNlLWFiYxoMcHJvdmlkZXJzL3AxIgJ2MSorEAIaAgIBMARCDAoFY29sb3IaA3JlZEIGCgJldiABSgIIAVIHCgJVUxIBNw=="),
        ("UpdateVehicle", "AAAAAJwKNgoFZW4tVVMSAlVTGgU5LjkuOSICMTQqBVBpeGVsMAJIAVIGR29vZ2xlWCJiCXRyYWNlLWFiYxoYcHJvdmlkZXJzL3AxL3ZlaGljbGVzL3YxIjcqNQoSCfYoXI/CtUJAEYXrUbgehV7AEgIIWhoCCCMiDAim69zKBhCAjI2eAjIJCXE9CtejcCNAKg8KDWxhc3RfbG9jYXRpb24="),
        ("UpdateVehicle", "AAAAAE0aGHByb3ZpZGVycy9wMS92ZWhpY2xlcy92MSIFEAGSAQAqKgoNdmVoaWNsZV9zdGF0ZQoZcmVtYWluaW5nX2Rpc3RhbmNlX21ldGVycw=="),
        ("UpdateVehicleAttributes", "AAAAADsaGHByb3ZpZGVycy9wMS92ZWhpY2xlcy92MSINCgVjb2xvchoEYmx1ZSIQCgVzZWF0cykAAAAAAAAUQA=="),
        ("ListVehicles", "AAAAAH8KDHByb3ZpZGVycy9wMRgBIgZwYWdlLTIyAggBOgECSgEBUgpjb2xvcjpibHVlWAJiNgoFZW4tVVMSAlVTGgU5LjkuOSICMTQqBVBpeGVsMAJIAVIGR29vZ2xlWCJiCXRyYWNlLWFiY4IBFGF0dHJpYnV0ZXMuZXYgPSB0cnVl"),
        ("SearchVehicles", "AAAAAJkKNgoFZW4tVVMSAlVTGgU5LjkuOSICMTQqBVBpeGVsMAJIAVIGR29vZ2xlWCJiCXRyYWNlLWFiYxoMcHJvdmlkZXJzL3AxIhQKEgm8dJMYBLZCQBH+ZffkYYVewCoUChIJKH6MuWuxQkARmggbnl6FXsAw0A84BUABSgECUgMIrAJiDQoFY29sb3IaBGJsdWVoAXICCAGoAQI="),
        ("DeleteVehicle", "AAAAABoSGHByb3ZpZGVycy9wMS92ZWhpY2xlcy92MQ=="),
    ]

    func decoded(_ rpc: String, _ frame: String) throws -> JSONObject {
        let json = try Self.schema.decode(Self.message(frame)[...], as: "maps.fleetengine.v1.\(rpc)Request")
        guard case .object(let object) = json else { throw ProtobufError(.malformed, "not an object") }
        return object
    }

    @Test func everyCapturedRequestReencodesToTheSameBytes() throws {
        for (rpc, frame) in Self.captured {
            let bytes = Self.message(frame)
            let json = try Self.schema.decode(bytes[...], as: "maps.fleetengine.v1.\(rpc)Request")
            let again = try Self.schema.encode(json, as: "maps.fleetengine.v1.\(rpc)Request")
            #expect(again == bytes, "\(rpc): \(json.compactString)")
        }
    }

    @Test func createTripDecodesToTheRESTBodyShape() throws {
        let request = try decoded("CreateTrip", Self.captured[0].frame)
        #expect(request["parent"] == "providers/p1")
        #expect(request["tripId"] == "t1")
        let trip = try #require(request["trip"])
        #expect(trip["tripType"] == "EXCLUSIVE")
        #expect(trip["numberOfPassengers"] == 2)
        #expect(trip["intermediateDestinations"]?.arrayValue?.count == 2)
        #expect(request["header"]?["sdkType"] == "DRIVER")
        #expect(request["header"]?["androidApiLevel"] == 34)
    }

    @Test func timestampsDurationsAndFieldMasksBecomeTheirJSONText() throws {
        let update = try decoded("UpdateTrip", Self.captured[2].frame)
        #expect(update["updateMask"] == "trip_status,intermediate_destination_index,intermediate_destinations_version")
        #expect(update["trip"]?["tripStatus"] == "ENROUTE_TO_INTERMEDIATE_DESTINATION")
        #expect(update["trip"]?["intermediateDestinationIndex"] == 1)
        let version = try #require(update["trip"]?["intermediateDestinationsVersion"]?.stringValue)
        #expect(version.hasSuffix(".600Z"), "\(version)")
        let search = try decoded("SearchTrips", Self.captured[4].frame)
        #expect(search["minimumStaleness"] == "30.500s")
        #expect(search["activeTripsOnly"] == true)
    }

    @Test func anEmptyWrapperIsAnExplicitZeroAndAnEmptyTripIsAnEmptyObject() throws {
        let state = try decoded("UpdateVehicle", Self.captured[7].frame)
        #expect(state["vehicle"]?["remainingDistanceMeters"] == 0)
        #expect(state["vehicle"]?["vehicleState"] == "OFFLINE")
        let reset = try decoded("UpdateTrip", Self.captured[3].frame)
        #expect(reset["trip"] == .object(JSONObject()))
        #expect(reset["updateMask"] == "intermediate_destination_index")
    }

    @Test func packedRepeatedEnumsAndWrappersDecode() throws {
        let create = try decoded("CreateVehicle", Self.captured[5].frame)
        #expect(create["vehicle"]?["supportedTripTypes"] == ["EXCLUSIVE", "SHARED"])
        #expect(create["vehicle"]?["vehicleType"]?["category"] == "AUTO")
        let location = try decoded("UpdateVehicle", Self.captured[6].frame)
        #expect(location["vehicle"]?["lastLocation"]?["heading"] == 90)
        #expect(location["vehicle"]?["lastLocation"]?["speed"] == 9.72)
        let list = try decoded("ListVehicles", Self.captured[9].frame)
        #expect(list["minimumCapacity"] == 1)
        #expect(list["tripTypes"] == ["EXCLUSIVE"])
        #expect(list["pageToken"] == "page-2")
    }

    @Test func unknownFieldsAreSkipped() throws {
        var writer = WireWriter()
        writer.tag(998, .varint)
        writer.varint(7)
        writer.lengthDelimited(999, Array("ignored".utf8))
        writer.lengthDelimited(3, Array("providers/p/trips/t".utf8))
        writer.tag(997, .fixed32)
        writer.fixed32(1)
        writer.tag(996, .fixed64)
        writer.fixed64(1)
        let json = try Self.schema.decode(writer.bytes[...], as: "maps.fleetengine.v1.GetTripRequest")
        #expect(json == ["name": "providers/p/trips/t"])
    }

    @Test func truncatedOrMistypedBytesAreRefusedNotTrapped() {
        let frame = Self.message(Self.captured[0].frame)
        for cut in [1, 10, 60, frame.count - 1] {
            #expect(throws: ProtobufError.self) { try Self.schema.decode(frame.prefix(cut), as: "maps.fleetengine.v1.CreateTripRequest") }
        }
        // Field 3 (name, a string) sent as a varint.
        #expect(throws: ProtobufError.self) { try Self.schema.decode([0x18, 0x01][...], as: "maps.fleetengine.v1.GetTripRequest") }
        // A string holding invalid UTF-8.
        #expect(throws: ProtobufError.self) { try Self.schema.decode([0x1a, 0x01, 0xff][...], as: "maps.fleetengine.v1.GetTripRequest") }
    }

    @Test func responsesKeepExplicitZeroWrappersAndDropDefaultScalars() throws {
        let trip: JSONValue = ["name": "providers/p/trips/t", "tripStatus": "NEW", "intermediateDestinationIndex": 0, "remainingDistanceMeters": 0,
                               "numberOfPassengers": 1, "pickupTime": "2024-05-01T12:00:00.500Z", "unknownExtension": "dropped"]
        let bytes = try Self.schema.encode(trip, as: "maps.fleetengine.v1.Trip")
        let back = try Self.schema.decode(bytes[...], as: "maps.fleetengine.v1.Trip")
        #expect(back == ["name": "providers/p/trips/t", "tripStatus": "NEW", "remainingDistanceMeters": 0, "numberOfPassengers": 1,
                         "pickupTime": "2024-05-01T12:00:00.500Z"])
        let list = try Self.schema.encode(["totalSize": "5", "nextPageToken": ""], as: "maps.fleetengine.v1.ListVehiclesResponse")
        #expect(list == [0x18, 0x05])
    }

    @Test func timestampTextRoundTripsAcrossTheEpochAndOffsets() {
        #expect(ProtoTime.formatTimestamp(seconds: 0, nanos: 0) == "1970-01-01T00:00:00Z")
        #expect(ProtoTime.formatTimestamp(seconds: -1, nanos: 500_000_000) == "1969-12-31T23:59:59.500Z")
        #expect(ProtoTime.formatTimestamp(seconds: 951_782_400, nanos: 1000) == "2000-02-29T00:00:00.000001Z")
        #expect(ProtoTime.parseTimestamp("2000-02-29T00:00:00.000001Z")! == (951_782_400, 1000))
        #expect(ProtoTime.parseTimestamp("2000-02-29T01:00:00+01:00")! == (951_782_400, 0))
        #expect(ProtoTime.parseTimestamp("2000-02-29 00:00:00Z") == nil)
        #expect(ProtoTime.formatDuration(seconds: 30, nanos: 500_000_000) == "30.500s")
        #expect(ProtoTime.parseDuration("-1.5s")! == (-1, -500_000_000))
    }

    @Test func grpcTimeoutUnitsAndMessageEscaping() {
        #expect(grpcTimeoutNanoseconds("15S") == 15_000_000_000)
        #expect(grpcTimeoutNanoseconds("15100m") == 15_100_000_000)
        #expect(grpcTimeoutNanoseconds("2H") == 7_200_000_000_000)
        #expect(grpcTimeoutNanoseconds("5u") == 5000)
        #expect(grpcTimeoutNanoseconds("S") == nil)
        #expect(grpcTimeoutNanoseconds("123456789S") == nil)
        #expect(GRPCStatus.percentEncoded("trip \"t\" 100% → é") == "trip \"t\" 100%25 %E2%86%92 %C3%A9")
        #expect(GRPCStatus.percentDecoded("100%25 %C3%A9") == "100% é")
    }
}
