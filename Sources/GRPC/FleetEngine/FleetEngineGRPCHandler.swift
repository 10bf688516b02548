import API
import JSON
import Protobuf

/// Serves `maps.fleetengine.v1.TripService` and `VehicleService` over gRPC: checks the token,
/// transcodes each request message from protobuf to proto3 JSON, calls `WaymarkAPI.call` (the
/// operation table's entries, as REST), and transcodes the answer back.
///
/// Errors carry the API's gRPC code and message; INTERNAL ones hide the details behind a request
/// id (logged by the API), as REST does.
package struct FleetEngineGRPCHandler: GRPCHandler {
    let api: WaymarkAPI
    static let methods = FleetEngineRPC.methods

    package init(api: WaymarkAPI) {
        self.api = api
    }

    package func handle(_ request: GRPCRequest) async -> GRPCResponse {
        guard let rpc = Self.methods[request.path] else {
            return .status(.unimplemented("unknown method \(request.path) (this server offers maps.fleetengine.v1.TripService and VehicleService)"))
        }
        let requestId = "grpc-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        do throws(APIError) {
            try api.admit(rpc, authorization: request.metadata("authorization"))
        } catch {
            return .status(GRPCStatus(code: error.code.grpcCode, message: error.message))
        }
        let message: JSONValue
        do {
            message = try FleetEngineSchema.schema.decode(request.message[...], as: rpc.requestMessage)
        } catch {
            return .status(.invalidArgument("the request is not a valid \(rpc.requestMessage) message: \(error)"))
        }
        let result: JSONValue
        do throws(APIError) {
            result = try await api.call(rpc, request: message, authorization: request.metadata("authorization"), requestId: requestId,
                                        consistencyToken: request.metadata(WaymarkAPI.consistencyTokenMetadata))
        } catch {
            let text = error.code == .internal ? "internal error (request id \(requestId))" : error.message
            return .status(GRPCStatus(code: error.code.grpcCode, message: text))
        }
        do {
            return .message(try FleetEngineSchema.schema.encode(result, as: rpc.responseMessage))
        } catch {
            return .status(.internal("could not encode the \(rpc.responseMessage) response (request id \(requestId)): \(error)"))
        }
    }
}
