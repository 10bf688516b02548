import WaymarkCLI

/// gRPC settings of `waymark serve`: `--grpc-port` overrides `WAYMARK_GRPC_PORT` (default 8081;
/// `off` disables the gRPC server; 0 picks a free port). It listens on the HTTP host.
/// `WAYMARK_GRPC_IDLE_TIMEOUT_SECONDS` (default 120) closes a connection with no call open that long.
struct GRPCSettings {
    /// nil: no gRPC server.
    var port: UInt16?
    var idleTimeoutSeconds: Int = 120

    static func load(_ environment: [String: String], flags: Flags) throws -> GRPCSettings {
        let idle = try wholeSetting(environment, "WAYMARK_GRPC_IDLE_TIMEOUT_SECONDS", 1...86_400, default: 120, of: "seconds")
        let text = flags.value("grpc-port") ?? environment["WAYMARK_GRPC_PORT"] ?? "8081"
        if text.lowercased() == "off" { return GRPCSettings(port: nil, idleTimeoutSeconds: idle) }
        guard let port = UInt16(text) else {
            throw UsageError("WAYMARK_GRPC_PORT must be a port number from 0 to 65535 or off, got \(text.debugDescription)")
        }
        return GRPCSettings(port: port, idleTimeoutSeconds: idle)
    }
}
