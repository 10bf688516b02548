import Foundation
import WaymarkCLI

let usage = """
    usage: waymark <command> [options]

    commands:
      serve                 run the server (embedded PostgreSQL under ./.waymark/pg when DATABASE_URL is unset)
      migrate               apply pending schema migrations
      db start|stop|status|url
                            manage the embedded PostgreSQL cluster (--data-dir, WAYMARK_DATA_DIR)
      rebuild [--projection NAME]
                            rebuild read models from position zero into fresh tables, swapped in atomically
      verify-projections [--projection NAME]
                            rebuild in memory and compare with the live read models; exit 1 on any difference
      report trip T [--provider P] [--out-dir DIR]
                            print the trip's route audit and write DIR/trip-T.svg (planned vs driven, off-route in red)
      verify [--stream S] [--since T] | verify --file FILE
                            recompute every stream's hash chain (and the signed roots when WAYMARK_AUDIT_KEY is set);
                            one line per broken stream or root, exit 1 on any break
      export --provider P [--since T] [--until T] [--stream S] [--format ndjson|csv]
                            write the provider's events to stdout in feed order (COPY; progress on a terminal)
      import FILE           load an NDJSON export into an empty database (`waymark migrate` it first), keeping positions
                            and hashes, and verify it
      archive --before T --to FILE
                            move whole days of vehicle events before T to FILE (verified), keeping every chain verifiable
      token --role R --provider P [--trip T] [--vehicle V] [--consumer C] [--ttl 3600]
                            print a bearer JWT signed with WAYMARK_JWT_SECRET (roles: server, driver, consumer, auditor)
      simulate --vehicles N --trips-per-minute M --speedup X [--seed S] [--url URL] [--provider demo] [--minutes K]
                            drive a synthetic fleet through a server's HTTP API (tokens signed with WAYMARK_JWT_SECRET)
      bench append          measure appends beside the raw COPY ceiling (--events N)
      bench rebuild         measure read-model rebuilds beside the raw read ceiling (--events N)
      bench export          waymark export and waymark verify beside a raw COPY of the same rows (--events N)
      bench http            GetTrip and UpdateVehicle request rates under wrk (--seconds 10 --connections 64)
      bench ingest          reportLocations and UpdateVehicle beside the raw COPY and INSERT rates (--seconds 10 --vehicles 10000
                            --reports 500 --ingest-connections 16 --connections 64 --cases update,ingest,update-fleet,ingest-alone --max-backlog 500000)
      bench grpc            GetTrip over gRPC vs REST, UpdateVehicle over gRPC (--seconds 10 --connections 4 --streams 16)
      bench peer            appends and reads beside the Python eventsourcing library (--seconds 5 --writers 8 --events N)
      bench memory          server RSS with a city's fleet and riders' streams (--vehicles 50000 --trips 10000 --streams 2000)
                            (each bench runs the waymark-bench binary installed next to this one)
      help [COMMAND]        show this text, or COMMAND's
      version, --version    print waymark's version

    every command answers --help (or -h) with its own usage and options; an unknown flag is an error (exit 2).
    verify, report, export, import and archive never migrate and never start the embedded cluster: they need a
    database at this binary's schema version (`waymark migrate`); verify, report and export only read.

    serve options: --host (WAYMARK_HTTP_HOST, 127.0.0.1), --port (WAYMARK_HTTP_PORT, 8080; 0 picks a free port),
                   --grpc-port (WAYMARK_GRPC_PORT, 8081; 0 picks a free port, off disables gRPC),
                   --demo (serve /demo and mint riders' tokens for provider demo), --simulate (with --demo: run the simulator in-process;
                   takes simulate's --vehicles, --trips-per-minute, --speedup, --seed)

    environment: DATABASE_URL, WAYMARK_READ_DATABASE_URL (--read-database-url, a streaming replica for reads), WAYMARK_DATA_DIR, WAYMARK_PG_PORT, WAYMARK_PG_BIN, WAYMARK_DB_ROLE, WAYMARK_LOG_LEVEL,
                 WAYMARK_HTTP_HOST, WAYMARK_HTTP_PORT, WAYMARK_HTTP_THREADS, WAYMARK_MAX_BODY_BYTES,
                 WAYMARK_JWT_SECRET, WAYMARK_JWT_PUBLIC_KEYS (comma-separated PEM files for RS256),
                 WAYMARK_AUDIT_KEY, WAYMARK_AUDIT_ROOT_EVERY, WAYMARK_AUDIT_ROOT_SECONDS (signed roots)
    """

/// Every command word: its declaration (usage, flags) and what runs it.
let commands: [String: (spec: CommandSpec, run: ([String], [String: String]) async throws -> Void)] = [
    "serve": (ServeCommand.spec, ServeCommand.run),
    "migrate": (MigrateCommand.spec, MigrateCommand.run),
    "db": (DatabaseCommand.spec, DatabaseCommand.run),
    "rebuild": (ProjectionCommands.rebuildSpec, ProjectionCommands.rebuild),
    "verify-projections": (ProjectionCommands.verifySpec, ProjectionCommands.verify),
    "bench": (BenchLauncher.spec, BenchLauncher.run),
    "report": (ReportCommand.spec, ReportCommand.run),
    "verify": (AuditCommands.verifySpec, AuditCommands.verify),
    "export": (AuditCommands.exportSpec, AuditCommands.export),
    "import": (AuditCommands.importSpec, AuditCommands.importFile),
    "archive": (AuditCommands.archiveSpec, AuditCommands.archive),
    "simulate": (SimulateCommand.spec, SimulateCommand.run),
    "token": (TokenCommand.spec, TokenCommand.run),
]

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
let invokedWord = arguments.first
let invoked = invokedWord.flatMap { commands[$0] }
/// `waymark` and the command word in error messages, once the word names a command.
let errorPrefix = "waymark" + (invoked != nil ? " " + (invokedWord ?? "") : "")

await CommandRunner.run(errorPrefix: errorPrefix, usage: invoked?.spec.help ?? usage) {
    switch invokedWord {
    case nil:
        throw UsageError("no command given")
    case "help", "--help", "-h":
        let word = arguments.dropFirst().first
        if word == "bench" { try BenchLauncher.run(["--help"], environment: environment) }
        printOut(word.flatMap { commands[$0]?.spec.help } ?? usage)
    case "version", "--version":
        printOut("waymark \(WaymarkVersion.current)")
    case let word?:
        guard let invoked else { throw UsageError("unknown command \(word.debugDescription)") }
        try await invoked.run(Array(arguments.dropFirst()), environment)
    }
}
