import API
import Foundation
import Signing
import WaymarkCLI

/// HTTP settings of `waymark serve`: flags override the environment, which overrides defaults.
struct HTTPSettings {
    var host: String
    var port: UInt16
    var threads: Int
    var maxBodyBytes: Int
    var publicKeys: [RSAPublicKey]
    var consistencyTimeoutSeconds: Int
    /// The base of share-link URLs; nil: `http://` and the request's Host header.
    var publicURL: String?
    /// `/readyz` warns when the feed's horizon is older than this.
    var horizonWarningSeconds: Int
    /// Events the journey and fleet projections may be behind this node's batch ingest (0: unbounded).
    var ingestBacklog: Int
    /// `WAYMARK_METRICS_ADDRESS` (`host:port`, IPv4): `/metrics` on a listener of its own instead of the public one.
    var metricsAddress: (host: String, port: UInt16)?
    /// `WAYMARK_CORS_ORIGINS`: the origins whose browser apps may call the rider routes (off by default).
    var cors: CORSPolicy

    static func load(_ environment: [String: String], flags: Flags) throws -> HTTPSettings {
        let host = flags.value("host") ?? environment["WAYMARK_HTTP_HOST"] ?? "127.0.0.1"
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else {
            throw UsageError("WAYMARK_HTTP_HOST must be an IPv4 address such as 127.0.0.1 or 0.0.0.0, got \(host.debugDescription)")
        }
        let portText = flags.value("port") ?? environment["WAYMARK_HTTP_PORT"] ?? "8080"
        guard let port = UInt16(portText) else {
            throw UsageError("WAYMARK_HTTP_PORT must be a port number from 0 to 65535, got \(portText.debugDescription)")
        }
        let threads = try wholeSetting(environment, "WAYMARK_HTTP_THREADS", 1...64, default: 2)
        let bodyText = environment["WAYMARK_MAX_BODY_BYTES"] ?? String(1 << 20)
        guard let maxBody = Int(bodyText), maxBody >= 1024 else {
            throw UsageError("WAYMARK_MAX_BODY_BYTES must be a whole number of bytes ≥ 1024, got \(bodyText.debugDescription)")
        }
        var keys: [RSAPublicKey] = []
        for path in (environment["WAYMARK_JWT_PUBLIC_KEYS"] ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !path.isEmpty {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8), let key = RSAPublicKey(pem: pem) else {
                throw UsageError("WAYMARK_JWT_PUBLIC_KEYS must list readable PEM files with RSA public keys; \(path.debugDescription) is not one")
            }
            keys.append(key)
        }
        let consistency = try wholeSetting(environment, "WAYMARK_CONSISTENCY_TIMEOUT_SECONDS", 1...600, default: 5, of: "seconds")
        let horizonWarning = try wholeSetting(environment, "WAYMARK_HORIZON_WARNING_SECONDS", 1...86_400, default: 30, of: "seconds")
        let ingestBacklog = try wholeSetting(environment, "WAYMARK_INGEST_MAX_BACKLOG", 0...1_000_000_000, default: IngestPacer.defaultMaximumBacklog, of: "events")
        var publicURL = environment["WAYMARK_PUBLIC_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if let url = publicURL {
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), URL(string: url)?.host != nil else {
                throw UsageError("WAYMARK_PUBLIC_URL must be an absolute http or https URL such as https://rides.example.com, got \(url.debugDescription)")
            }
            while publicURL?.hasSuffix("/") == true { publicURL?.removeLast() }
        }
        var metricsAddress: (host: String, port: UInt16)?
        if let text = environment["WAYMARK_METRICS_ADDRESS"], !text.isEmpty {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            var metricsHost = in_addr()
            guard parts.count == 2, inet_pton(AF_INET, String(parts[0]), &metricsHost) == 1, let metricsPort = UInt16(parts[1]) else {
                throw UsageError("WAYMARK_METRICS_ADDRESS must be an IPv4 address and port such as 127.0.0.1:9090, got \(text.debugDescription)")
            }
            metricsAddress = (String(parts[0]), metricsPort)
        }
        let cors: CORSPolicy
        do {
            cors = try CORSPolicy.parse(environment["WAYMARK_CORS_ORIGINS"] ?? "")
        } catch {
            throw UsageError(error.description)
        }
        return HTTPSettings(host: host, port: port, threads: threads, maxBodyBytes: maxBody, publicKeys: keys, consistencyTimeoutSeconds: consistency,
                            publicURL: publicURL, horizonWarningSeconds: horizonWarning, ingestBacklog: ingestBacklog, metricsAddress: metricsAddress,
                            cors: cors)
    }
}
