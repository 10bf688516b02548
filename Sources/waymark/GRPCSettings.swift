/// gRPC settings of `waymark serve`: `--grpc-port` overrides `WAYMARK_GRPC_PORT` (default 8081;
/// `off` disables the gRPC server; 0 picks a free port). It listens on the HTTP host.
struct GRPCSettings {
    /// nil: no gRPC server.
    var port: UInt16?

    static func load(_ environment: [String: String], flags: Flags) throws -> GRPCSettings {
        let text = flags.value("grpc-port") ?? environment["WAYMARK_GRPC_PORT"] ?? "8081"
        if text.lowercased() == "off" { return GRPCSettings(port: nil) }
        guard let port = UInt16(text) else {
            throw UsageError("WAYMARK_GRPC_PORT must be a port number from 0 to 65535 or off, got \(text.debugDescription)")
        }
        return GRPCSettings(port: port)
    }
}
