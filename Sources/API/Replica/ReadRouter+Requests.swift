import Foundation
import HTTP
import JSON
import ReadSide

extension ReadRouter {
    /// The `/metrics` lines, when a replica is configured (none otherwise).
    func metricLines() -> [String] {
        guard replica != nil else { return [] }
        let counts = statistics
        return [
            "# HELP waymark_replica_reads_total Read-model queries the read replica answered.",
            "# TYPE waymark_replica_reads_total counter", "waymark_replica_reads_total \(counts.replicaReads)",
            "# HELP waymark_replica_fallbacks_total Read-model queries sent to the primary instead: the replica had not replayed far enough in time (lag) or failed (error).",
            "# TYPE waymark_replica_fallbacks_total counter",
            "waymark_replica_fallbacks_total{reason=\"lag\"} \(counts.lagFallbacks)",
            "waymark_replica_fallbacks_total{reason=\"error\"} \(counts.errorFallbacks)",
        ]
    }
}

extension WaymarkAPI {
    /// The request header (REST) and metadata key (gRPC) of a consistency token: a write's answer
    /// carries it, and a read that sends it back sees that write even when a replica answers.
    package static let consistencyTokenHeader = "Waymark-Consistency-Token"
    package static let consistencyTokenMetadata = "waymark-consistency-token"

    /// `call` with the read routed by the RPC's kind: reads to the replica (after `consistencyToken`
    /// when given), writes and the answers they read to the primary.
    package func call(_ rpc: FleetEngineRPC, request: JSONValue, authorization: String?, requestId: String,
                      consistencyToken: String?) async throws(APIError) -> JSONValue {
        guard reads.replica != nil else { return try await call(rpc, request: request, authorization: authorization, requestId: requestId) }
        var preference = ReadPreference.primary
        if rpc.isRead {
            var after: WALPosition?
            if let consistencyToken {
                guard let position = WALPosition(consistencyToken) else { throw Self.badToken(consistencyToken) }
                after = position
            }
            preference = .replica(after: after)
        }
        let outcome: Result<JSONValue, APIError> = await ReadRouter.$preference.withValue(preference) {
            do throws(APIError) {
                return .success(try await call(rpc, request: request, authorization: authorization, requestId: requestId))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    static func badToken(_ text: String) -> APIError {
        .invalidArgument("\(consistencyTokenHeader) must be a WAL position such as 0/16B3748 (from a write's answer), got \(String(text.prefix(40)).debugDescription)")
    }
}

extension RESTHandler {
    /// Runs `dispatch` with reads routed by the request's operation, when a read replica is configured.
    ///
    /// An operation that reads (`APIOperation.isRead`: the GETs and the `:search` POSTs) reads from
    /// the replica, after the request's `Waymark-Consistency-Token` when it has one; a request no
    /// operation serves goes by its method. Everything else writes: its reads (the answer of a
    /// command) stay on the primary, and a successful answer carries the token of the write, taken
    /// once the fleet projection has applied it.
    func withReadRouting(_ request: HTTPRequest, _ operation: APIOperation?, _ dispatch: () async -> HTTPResponse) async -> HTTPResponse {
        let reads = api.reads
        guard reads.replica != nil else { return await dispatch() }
        let isRead = operation?.isRead ?? (request.method == "GET" || request.method == "HEAD")
        if isRead {
            var after: WALPosition?
            if let text = request.header(WaymarkAPI.consistencyTokenHeader) {
                guard let position = WALPosition(text.trimmingCharacters(in: .whitespaces)) else {
                    return Self.errorResponse(WaymarkAPI.badToken(text), requestId: request.requestId, log: api.log)
                }
                after = position
            }
            return await ReadRouter.$preference.withValue(.replica(after: after)) { await dispatch() }
        }
        var response = await ReadRouter.$preference.withValue(.primary) { await dispatch() }
        guard (200..<300).contains(response.status) else { return response }
        // Some writes answer before the fleet projection applies them (UpdateVehicle of locations on
        // the owning node, batch ingest): the token must cover the projection's commit too, so wait
        // for this node's latest write first (normally a batch or less; the token is given anyway
        // after the consistency timeout).
        try? await api.vehicles.awaitAllOwnWrites()
        if let position = try? await reads.primaryPosition() {
            response.headers.append((WaymarkAPI.consistencyTokenHeader, position.description))
        }
        return response
    }
}
