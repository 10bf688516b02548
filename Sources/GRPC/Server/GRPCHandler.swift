/// What the server calls for every complete request; runs on the cooperative pool, never on the
/// socket thread, so it may await the database.
package protocol GRPCHandler: Sendable {
    func handle(_ request: GRPCRequest) async -> GRPCResponse
}
