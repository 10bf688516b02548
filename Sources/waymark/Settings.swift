import Foundation
import API
import Signing

/// Configuration read once from the environment and the command line (flags override environment
/// override defaults). Library modules never read the environment; they get these values.
struct Settings {
    var databaseURL: String?
    var dataDirectory: String
    var embeddedPort: Int
    var postgresBin: String?
    var databaseRole: String
    var logLevel: Logger.Level

    static func load(_ environment: [String: String], flags: Flags) throws -> Settings {
        let url = flags.value("database-url") ?? environment["DATABASE_URL"]
        let portText = flags.value("pg-port") ?? environment["WAYMARK_PG_PORT"] ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw UsageError("WAYMARK_PG_PORT must be a port number from 1 to 65535, got \(portText.debugDescription)")
        }
        let levelText = flags.value("log-level") ?? environment["WAYMARK_LOG_LEVEL"] ?? "info"
        let levels: [String: Logger.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
        guard let level = levels[levelText] else {
            throw UsageError("WAYMARK_LOG_LEVEL must be one of debug, info, warning, error; got \(levelText.debugDescription)")
        }
        return Settings(
            databaseURL: (url?.isEmpty ?? true) ? nil : url,
            dataDirectory: flags.value("data-dir") ?? environment["WAYMARK_DATA_DIR"] ?? ".waymark/pg",
            embeddedPort: port,
            postgresBin: environment["WAYMARK_PG_BIN"],
            databaseRole: flags.value("db-role") ?? environment["WAYMARK_DB_ROLE"] ?? "waymark_app",
            logLevel: level)
    }
}

/// A wrong command line or setting; printed with the command's usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    /// The command it belongs to (`export`, `db start`) when the thrower knows it; main names the command word otherwise.
    var command: String?
    /// That command's help; nil: main prints the help of the command word it ran.
    var usage: String?

    init(_ description: String, command: String? = nil, usage: String? = nil) {
        self.description = description
        self.command = command
        self.usage = usage
    }
}

/// `--name value` and `--name=value` flags, switches and positional words, checked against the
/// flags a command declares (`CommandSpec`).
struct Flags {
    private(set) var values: [String: String] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` for `command`.
    ///
    /// `--help` or `-h` anywhere throws `HelpRequested` before anything else is looked at. A flag the
    /// command does not declare, a missing value, a value given to a switch, and more positional
    /// words than the command takes are usage errors naming the command. A word after a flag that
    /// needs a value is that value unless it starts with `--` (`--trips -1` is a bad count, not a flag).
    init(_ arguments: [String], for command: CommandSpec) throws {
        if arguments.contains("--help") || arguments.contains("-h") { throw HelpRequested(text: command.help) }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            let spelled = String(argument.prefix { $0 != "=" })
            let name = String(spelled.drop { $0 == "-" })
            guard spelled.hasPrefix("--"), let flag = command.flags.first(where: { $0.name == name }) else {
                throw command.usageError("unknown flag \(spelled)")
            }
            let inline = argument.firstIndex(of: "=").map { String(argument[argument.index(after: $0)...]) }
            if flag.value == nil {
                guard inline == nil else { throw command.usageError("\(spelled) is a switch and takes no value") }
                switches.insert(name)
            } else if let inline {
                values[name] = inline
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw command.usageError("\(spelled) needs a value (\(flag.synopsis))")
                }
                values[name] = arguments[index]
                index += 1
            }
        }
        guard positional.count <= command.operands else {
            throw command.usageError("unexpected argument \(positional[command.operands].debugDescription)")
        }
    }

    func value(_ name: String) -> String? { values[name] }

    func int(_ name: String, default fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value > 0 else { throw UsageError("--\(name) must be a positive whole number, got \(text.debugDescription)") }
        return value
    }
}

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
