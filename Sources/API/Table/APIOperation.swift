import HTTP
import JSON

/// One operation of the API: its name, where REST finds it, who may call it and what serves it.
///
/// Both front doors adapt the same entry: REST matches `method` and `path` and runs `serve`; gRPC
/// finds the entry by `rpc` and runs `rpc.serve`. Authorization (`access`) and metrics (`name`)
/// are applied by the front door, once, from the entry; adding an endpoint is adding an entry.
struct APIOperation: Sendable {
    /// The `route` label in metrics and the gRPC method name (Fleet Engine's, where it has one).
    let name: String
    /// The REST method.
    let method: String
    /// The REST path template (see `RouteTrie`), such as `/v1/providers/{provider}/trips/{id}`.
    let path: String
    let access: Access
    /// Whether it only reads, so that with a read replica it may be answered from the replica
    /// (after the caller's consistency token); GET operations read unless they say otherwise.
    let isRead: Bool
    /// Whether REST parses the JSON body before `serve` (otherwise `serve` reads it, where it needs).
    let readsBody: Bool
    /// Whether a rider's app on another origin may call it (`CORSPolicy`), for rider operations.
    let crossOrigin: CrossOrigin
    /// Which answer `RESTHandler.respondImmediately` may give from memory on the server thread.
    let fastPath: FastPath?
    /// Serves the REST request once `access` has admitted the caller.
    let serve: @Sendable (inout OperationInput) async throws(APIError) -> HTTPResponse
    /// How gRPC serves it, for the Fleet Engine RPCs.
    let rpc: RPCBinding?

    /// Whether an operation is offered to pages on other origins (the rider operations).
    enum CrossOrigin: Sendable {
        /// Not a rider operation: no CORS headers, and a preflight gets the usual 405.
        case none
        case allowed
        /// A rider operation that pages on other origins may not call (a preflight is refused).
        case refused
    }

    /// The rider answers served from memory on the HTTP server's thread when they can be.
    enum FastPath: Sendable {
        case journey, journeyStream
    }

    init(_ name: String, _ method: String, _ path: String, access: Access, isRead: Bool? = nil, readsBody: Bool = false,
         crossOrigin: CrossOrigin = .none, fastPath: FastPath? = nil, rpc: RPCBinding? = nil, serve: @escaping @Sendable (inout OperationInput) async throws(APIError) -> HTTPResponse) {
        self.name = name
        self.method = method
        self.path = path
        self.access = access
        self.isRead = isRead ?? (method == "GET")
        self.readsBody = readsBody
        self.crossOrigin = crossOrigin
        self.fastPath = fastPath
        self.rpc = rpc
        self.serve = serve
    }

    /// The methods a CORS preflight for this operation allows.
    var corsMethods: [String] { method == "GET" ? ["GET", "HEAD"] : [method] }
}

/// How gRPC serves an operation: the service, its messages, and the call on a request message.
struct RPCBinding: Sendable {
    let service: String
    let requestMessage: String
    let responseMessage: String
    /// Reads the request message (proto3 JSON) and calls the service, once the caller is admitted.
    let serve: @Sendable (WaymarkAPI, JSONObject, CommandContext) async throws(APIError) -> JSONValue
}
