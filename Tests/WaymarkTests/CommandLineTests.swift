import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import Signing
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct CommandLineTests {
    @Test func helpPrintsTheCommandsAndExitsZero() async throws {
        let result = try await WaymarkBinary.run(["help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("serve") && result.stdout.contains("migrate") && result.stdout.contains("db start|stop|status|url"))
        #expect(result.stdout.contains("--help") && result.stdout.contains("--version"))
    }

    /// Every command and subcommand that has a usage of its own.
    static let commands: [[String]] = [
        ["serve"], ["migrate"], ["db"], ["db", "start"], ["db", "stop"], ["db", "status"], ["db", "url"],
        ["rebuild"], ["verify-projections"], ["report"], ["verify"], ["export"], ["import"], ["archive"], ["token"], ["simulate"],
        ["bench"], ["bench", "append"], ["bench", "rebuild"], ["bench", "export"], ["bench", "http"], ["bench", "ingest"],
        ["bench", "grpc"], ["bench", "peer"], ["bench", "memory"],
    ]

    /// No reachable database and no secret: a command that went past `--help` would fail.
    static let nothingToUse = ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm&port=1", "WAYMARK_JWT_SECRET": "", "WAYMARK_JWT_SECRET_FILE": "",
                               "WAYMARK_DATA_DIR": "/nonexistent-wm/pg"]

    @Test func everyCommandAnswersHelpWithItsOwnUsageOnStdoutWithoutADatabaseOrASecret() async throws {
        for command in Self.commands {
            for flag in ["--help", "-h"] {
                let result = try await WaymarkBinary.run(command + [flag], environment: Self.nothingToUse)
                let name = (command + [flag]).joined(separator: " ")
                #expect(result.status == 0, "\(name): exit \(result.status): \(result.stderr)")
                #expect(result.stdout.hasPrefix("usage: waymark \(command.joined(separator: " ")) "), "\(name): \(result.stdout)")
                #expect(result.stdout.contains("-h, --help"), "\(name): \(result.stdout)")
                #expect(result.stderr.isEmpty, "\(name): \(result.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent-wm"), "no command created its data directory")
    }

    @Test func aCommandsHelpListsTheFlagsItReads() async throws {
        let export = try await WaymarkBinary.run(["export", "--help"], environment: Self.nothingToUse)
        for flag in ["--provider P", "--since T", "--until T", "--stream S", "--format F", "--database-url URL"] {
            #expect(export.stdout.contains(flag), "\(flag): \(export.stdout)")
        }
        let ingest = try await WaymarkBinary.run(["bench", "ingest", "-h"], environment: Self.nothingToUse)
        #expect(ingest.stdout.contains("--max-backlog N") && ingest.stdout.contains("--keep"), "\(ingest.stdout)")
        let named = try await WaymarkBinary.run(["help", "token"])
        #expect(named.status == 0 && named.stdout.hasPrefix("usage: waymark token ") && named.stdout.contains("--ttl SECONDS"), "\(named.stdout)")
    }

    @Test func anUnknownFlagExitsTwoNamingTheFlagAndTheCommandAndWritesNothingToStdout() async throws {
        let result = try await WaymarkBinary.run(["export", "--provider", "acme", "--sinse", "2024-01-01"], environment: Self.nothingToUse)
        #expect(result.status == 2, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("waymark export: unknown flag --sinse\n"), "\(result.stderr)")
        #expect(result.stderr.contains("usage: waymark export "), "the command's usage follows")
        #expect(result.stdout.isEmpty)
        // Spelled with `=`, on a command with subcommands, and on serve (before any secret is asked for).
        let inline = try await WaymarkBinary.run(["verify", "--sinse=2024-01-01"], environment: Self.nothingToUse)
        #expect(inline.status == 2 && inline.stderr.hasPrefix("waymark verify: unknown flag --sinse\n"), "\(inline.stderr)")
        let db = try await WaymarkBinary.run(["db", "url", "--port", "5433"], environment: Self.nothingToUse)
        #expect(db.status == 2 && db.stderr.hasPrefix("waymark db url: unknown flag --port\n") && db.stdout.isEmpty, "\(db.stderr)")
        let serve = try await WaymarkBinary.run(["serve", "--prot", "8080"], environment: Self.nothingToUse)
        #expect(serve.status == 2 && serve.stderr.hasPrefix("waymark serve: unknown flag --prot\n"), "\(serve.stderr)")
    }

    @Test func aFlagWithoutItsValueOrASwitchWithOneExitsTwo() async throws {
        let last = try await WaymarkBinary.run(["export", "--provider"], environment: Self.nothingToUse)
        #expect(last.status == 2 && last.stderr.hasPrefix("waymark export: --provider needs a value (--provider P)\n"), "\(last.stderr)")
        let followed = try await WaymarkBinary.run(["token", "--role", "--provider", "acme"], environment: ["WAYMARK_JWT_SECRET": String(repeating: "k", count: 32)])
        #expect(followed.status == 2 && followed.stderr.contains("--role needs a value"), "\(followed.stderr)")
        #expect(followed.stdout.isEmpty, "no token is printed")
        let valued = try await WaymarkBinary.run(["serve", "--demo=yes"], environment: Self.nothingToUse)
        #expect(valued.status == 2 && valued.stderr.contains("--demo is a switch and takes no value"), "\(valued.stderr)")
        let stray = try await WaymarkBinary.run(["verify", "everything"], environment: Self.nothingToUse)
        #expect(stray.status == 2 && stray.stderr.contains("waymark verify: unexpected argument \"everything\""), "\(stray.stderr)")
    }

    @Test func versionPrintsTheVersionAndExitsZero() async throws {
        for words in [["--version"], ["version"]] {
            let result = try await WaymarkBinary.run(words)
            #expect(result.status == 0, "\(words): \(result.stderr)")
            let line = result.stdout.trimmingCharacters(in: .newlines)
            #expect(line.range(of: #"^waymark [0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil, "\(words): \(result.stdout)")
        }
    }

    @Test func anUnknownCommandExitsTwoAndSaysWhich() async throws {
        let result = try await WaymarkBinary.run(["fly"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown command \"fly\""))
    }

    @Test func aBadSettingNamesTheVariableAndTheExpectedForm() async throws {
        let result = try await WaymarkBinary.run(["db", "url"], environment: ["WAYMARK_PG_PORT": "eighty"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("WAYMARK_PG_PORT must be a port number"))
    }

    @Test func serveRefusesAHeapTrimIntervalThatIsNotAWholeNumberOfSeconds() async throws {
        for bad in ["often", "-1", "3601"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_MALLOC_TRIM_SECONDS": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_MALLOC_TRIM_SECONDS must be a whole number of seconds from 0 (off) to 3600"))
        }
    }

    @Test func serveRefusesAProjectionSettleThatIsNotAWholeNumberOfMilliseconds() async throws {
        for bad in ["soon", "-5", "10001"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_PROJECTION_SETTLE_MS": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_PROJECTION_SETTLE_MS must be a whole number of milliseconds from 0 to 10000"))
        }
    }

    @Test func serveRefusesASnapshotIntervalThatIsNotAWholeNumberOfMilliseconds() async throws {
        for bad in ["later", "-1", "60001", "1s"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_PROJECTION_SNAPSHOT_MS": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_PROJECTION_SNAPSHOT_MS must be a whole number of milliseconds from 0 to 60000"))
        }
    }

    @Test func serveRefusesAFeedCacheSizeThatIsNotAWholeNumberOfEvents() async throws {
        for bad in ["many", "-1", "1000001", "4k"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_FEED_CACHE_EVENTS": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_FEED_CACHE_EVENTS must be a whole number of events from 0 to 1000000"))
        }
    }

    @Test func serveRefusesAProjectionBatchThatIsNotAWholeNumberOfEventsFromOne() async throws {
        for bad in ["all", "0", "100001", "1e3"] {
            let result = try await WaymarkBinary.run(["serve"], environment: ["WAYMARK_PROJECTION_BATCH": bad, "WAYMARK_HTTP_PORT": "0"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("WAYMARK_PROJECTION_BATCH must be a whole number of events from 1 to 100000"))
        }
    }

    @Test func dbStatusOfAMissingClusterSaysSoWithExitThree() async throws {
        let result = try await WaymarkBinary.run(["db", "status", "--data-dir", "/tmp/wm-none-\(UUID().uuidString)/pg"])
        #expect(result.status == 3)
        #expect(result.stdout.contains("not initialized"))
    }

    @Test func dbUrlPointsAtTheClusterSocketDirectory() async throws {
        let result = try await WaymarkBinary.run(["db", "url", "--data-dir", "/tmp/somewhere/pg", "--pg-port", "5544"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "postgresql:///postgres?host=/tmp/somewhere/pg&port=5544&user=postgres")
    }

    @Test func migrateAppliesTheSchemaOnceAndThenReportsUpToDate() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let first = try await WaymarkBinary.run(["migrate"], environment: ["DATABASE_URL": url])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("applied migrations: 1_event_store"))
            let second = try await WaymarkBinary.run(["migrate"], environment: ["DATABASE_URL": url])
            #expect(second.status == 0)
            #expect(second.stderr.contains("schema is up to date"))
        }
    }

    @Test func migrateAgainstAnUnreachableDatabaseFailsWithExitOne() async throws {
        let result = try await WaymarkBinary.run(["migrate"], environment: ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm&port=1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("could not connect to PostgreSQL"))
    }

    @Test func rebuildAndVerifyProjectionsSucceedOnAFreshDatabase() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let rebuild = try await WaymarkBinary.run(["rebuild"], environment: ["DATABASE_URL": url])
            #expect(rebuild.status == 0, "\(rebuild.stderr)")
            #expect(rebuild.stderr.contains("rebuilt journey: 0 events") && rebuild.stderr.contains("rebuilt route_audit"))
            let verify = try await WaymarkBinary.run(["verify-projections", "--projection", "fleet"], environment: ["DATABASE_URL": url])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stderr.contains("projection fleet: live model equals a rebuild"))
        }
    }

    @Test func verifyProjectionsExitsOneAndPrintsTheDifferenceWhenAReadModelWasTamperedWith() async throws {
        try await TestDatabase.withTestDatabase { url in
            try await Blocking.run {
                try Connection(conninfo: url).execute(#"INSERT INTO rm_journey VALUES ('views', 'providers/x/trips/ghost', '{"name": "ghost"}')"#)
            }
            let verify = try await WaymarkBinary.run(["verify-projections", "--projection", "journey"], environment: ["DATABASE_URL": url])
            #expect(verify.status == 1)
            #expect(verify.stdout.contains("rm_journey views providers/x/trips/ghost: in the live model, not in the rebuild"))
        }
    }

    @Test func anUnknownProjectionNameIsAUsageErrorListingTheKnownOnes() async throws {
        let result = try await WaymarkBinary.run(["rebuild", "--projection", "nope"], environment: ["DATABASE_URL": "postgresql:///x?host=/nonexistent-wm"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no projection named \"nope\"; known: journey, fleet, route_audit"))
    }

    @Test func serveWithoutASecretOrWithAShortOneRefusesToStartAndNeverPrintsIt() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let base = ["DATABASE_URL": url, "WAYMARK_HTTP_PORT": "0", "WAYMARK_GRPC_PORT": "off"]
            let none = try await WaymarkBinary.run(["serve"], environment: base)
            #expect(none.status == 2, "\(none.output)")
            #expect(none.stderr.contains("WAYMARK_JWT_SECRET (or WAYMARK_JWT_SECRET_FILE) must be set"), "\(none.stderr)")
            let short = try await WaymarkBinary.run(["serve"], environment: base.merging(["WAYMARK_JWT_SECRET": "hunter2-hunter2"]) { $1 })
            #expect(short.status == 2, "\(short.output)")
            #expect(short.stderr.contains("WAYMARK_JWT_SECRET is 15 bytes; HS256 needs at least 32"), "\(short.stderr)")
            #expect(!short.output.contains("hunter2"))
        }
    }

    @Test func serveWithASecretFileListensNeverLogsTheSecretAndStopsCleanlyOnSIGTERM() async throws {
        try await TestDatabase.withTestDatabase(migrate: false) { url in
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("wm-serve-\(UUID().uuidString).log")
            let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("wm-secret-\(UUID().uuidString)")
            let secret = "serve-secret-\(UUID().uuidString)"
            try Data((secret + "\n").utf8).write(to: secretFile)
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            defer {
                try? FileManager.default.removeItem(at: log)
                try? FileManager.default.removeItem(at: secretFile)
            }
            let handle = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: WaymarkBinary.path)
            process.arguments = ["serve"]
            var environment = ProcessInfo.processInfo.environment
            environment["DATABASE_URL"] = url
            environment["WAYMARK_HTTP_PORT"] = "0"
            environment["WAYMARK_GRPC_PORT"] = "0"
            environment["WAYMARK_LOG_LEVEL"] = "debug"
            environment.removeValue(forKey: "WAYMARK_JWT_SECRET")
            environment["WAYMARK_JWT_SECRET_FILE"] = secretFile.path
            process.environment = environment
            process.standardError = handle
            process.standardOutput = handle
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            var text = ""
            while Date() < deadline {
                text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if text.contains("listening for gRPC on") { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(text.contains("event store ready"))
            #expect(text.contains("listening on http://127.0.0.1:"))
            // The file's secret signs: a token minted with it is accepted.
            let port = text.components(separatedBy: "listening on http://127.0.0.1:").last?.prefix { $0.isNumber } ?? ""
            let now = Int64(Date().timeIntervalSince1970)
            let token = JWT.signHS256(header: Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8),
                                      payload: Array(#"{"aud":"waymark","iat":\#(now),"exp":\#(now + 60),"role":"server","provider":"acme"}"#.utf8),
                                      key: Array(secret.utf8))
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/v1/providers/acme/vehicles/v-1")))
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 404)
            process.terminate()  // SIGTERM
            let stopDeadline = Date().addingTimeInterval(15)
            while process.isRunning && Date() < stopDeadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(!process.isRunning)
            #expect(process.terminationStatus == 0)
            try handle.close()
            let final = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(final.contains("shutting down"))
            #expect(final.contains("listening for gRPC on 127.0.0.1:"))
            #expect(!final.contains(secret), "the secret never reaches the log")
        }
    }

    @Test func theEmbeddedClusterIsPrivateAndItsPostmasterHasNoneOfOurEnvironment() async throws {
        try await TestLoad.withSlot { try await Self.privateCluster() }
    }

    private static func privateCluster() async throws {
        let directory = "/tmp/wm-private-env-\(UUID().uuidString.prefix(8).lowercased())"
        let marker = "marker-secret-\(UUID().uuidString)"
        defer {
            _ = try? Subprocess.run(WaymarkBinary.path, ["db", "stop", "--data-dir", directory])
            try? FileManager.default.removeItem(atPath: directory)
        }
        let started = try await WaymarkBinary.run(["db", "start", "--data-dir", directory], environment: ["WAYMARK_JWT_SECRET": marker])
        try #require(started.status == 0, "\(started.output)")
        let pidLine = try String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8).split(separator: "\n").first ?? ""
        let postmaster = try #require(Int32(pidLine), "no pid in postmaster.pid")
        let environ = try #require(FileManager.default.contents(atPath: "/proc/\(postmaster)/environ"))
        #expect(!environ.isEmpty)
        #expect(!String(decoding: environ, as: UTF8.self).contains(marker), "the postmaster carries the server's secret")
        #expect(!String(decoding: environ, as: UTF8.self).contains("WAYMARK_"), "the postmaster carries waymark's settings")
        // Only the cluster's owner reaches the socket: the directory and the socket are 0700.
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700, "directory mode \(String(describing: attributes[.posixPermissions]))")
        let socket = try FileManager.default.attributesOfItem(atPath: directory + "/.s.PGSQL.5432")
        #expect(((socket[.posixPermissions] as? Int) ?? 0) & 0o077 == 0, "socket mode \(String(describing: socket[.posixPermissions]))")
    }
}
