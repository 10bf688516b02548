/// Every operation the API serves, and the lookups the front doors use: REST by method and
/// path, gRPC by method path.
///
/// Built once (`standard`); the entries live in the `OperationTable+*.swift` files by surface.
struct OperationTable: Sendable {
    let operations: [APIOperation]
    private let trie: RouteTrie
    /// The gRPC operations by their method path (`/maps.fleetengine.v1.TripService/GetTrip`).
    let rpcs: [String: FleetEngineRPC]

    init(_ operations: [APIOperation]) {
        self.operations = operations
        var trie = RouteTrie()
        var rpcs: [String: FleetEngineRPC] = [:]
        for (index, operation) in operations.enumerated() {
            trie.insert(operation.path, method: operation.method, operation: index)
            if let rpc = operation.rpc { rpcs["/\(rpc.service)/\(operation.name)"] = FleetEngineRPC(operation: operation, binding: rpc) }
        }
        self.trie = trie
        self.rpcs = rpcs
    }

    static let standard = OperationTable(fleetEngine + rider + driver + webhooks + audit + operations)

    /// The operation for a request and its path parameters; nil when no operation has the path,
    /// METHOD_NOT_ALLOWED (naming the allowed methods) when it has, for other methods. HEAD is GET.
    func match(method: String, path: String) throws(APIError) -> (operation: APIOperation, parameters: PathParameters)? {
        guard let (methods, parameters) = trie.find(path) else { return nil }
        if let hit = methods.first(where: { $0.method == method }) ?? (method == "HEAD" ? methods.first { $0.method == "GET" } : nil) {
            return (operations[hit.operation], parameters)
        }
        throw APIError(.methodNotAllowed, "\(method) is not allowed on \(path) (allowed: \(methods.map(\.method).sorted().joined(separator: ", ")))")
    }
}
