// swift-tools-version:6.0
import PackageDescription

/// One settings list for every target (STYLE.md: shape of the package).
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "waymark",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "waymark", targets: ["waymark"]),
        .executable(name: "waymark-bench", targets: ["waymark-bench"]),
    ],
    targets: [
        // C libraries from Debian packages. Each has exactly one Swift owner.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // glibc's posix_spawn close-from action, hidden from Swift's Glibc module (header only).
        .systemLibrary(name: "CSpawn", path: "Sources/CSpawn"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // jemalloc as the executable's malloc (libjemalloc-dev), with its options and a way to tell it is in use.
        .target(name: "Allocator", path: "Sources/Allocator", linkerSettings: [.linkedLibrary("jemalloc"), .linkedLibrary("dl")]),

        // Pure modules.
        .target(name: "JSON", swiftSettings: settings),
        .target(name: "Geo", swiftSettings: settings),
        .target(name: "Journey", dependencies: ["Geo", "JSON"], swiftSettings: settings),
        .target(name: "ReadModels", dependencies: ["Journey", "Geo", "JSON"], swiftSettings: settings),
        .target(name: "Simulator", dependencies: ["Journey", "Geo", "JSON"], swiftSettings: settings),
        .target(name: "Protobuf", dependencies: ["JSON"], swiftSettings: settings),

        // Owners of C libraries.
        .target(name: "Signing", dependencies: ["COpenSSL"], swiftSettings: settings),
        .target(name: "Postgres", dependencies: ["CLibPQ", "CSpawn"], swiftSettings: settings),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "CCurl"], swiftSettings: settings),

        // Storage.
        .target(name: "Schema", dependencies: ["Postgres"], resources: [.embedInCode("sql")], swiftSettings: settings),
        .target(name: "EventStore", dependencies: ["Postgres", "Signing", "JSON", "Schema"], swiftSettings: settings),
        // The read side: names every read-model table and holds the SQL that reads them; the
        // projections' writer takes its tables from here, so the two cannot disagree.
        .target(name: "ReadSide", dependencies: ["Postgres", "ReadModels", "JSON"], swiftSettings: settings),
        .target(name: "Projections", dependencies: ["EventStore", "ReadModels", "ReadSide", "Journey", "Postgres", "JSON"], swiftSettings: settings),

        // The API: Fleet Engine services, routes, auth, operations endpoints.
        .target(
            name: "API",
            dependencies: ["HTTP", "EventStore", "Projections", "ReadModels", "ReadSide", "Journey", "Geo", "JSON", "Signing", "Postgres"],
            resources: [.embedInCode("openapi.json")],
            swiftSettings: settings
        ),

        // The demo page served by `waymark serve --demo` (HTML, CSS and JavaScript embedded in the binary).
        .target(name: "Demo", dependencies: ["API", "HTTP", "JSON", "Simulator"], resources: [.embedInCode("Resources")], swiftSettings: settings),
        // gRPC front door: the only code that touches libnghttp2.
        .target(name: "GRPC", dependencies: ["CNGHTTP2", "API", "HTTP", "Protobuf", "JSON"], swiftSettings: settings),

        // What both executables' command lines share: flags and help, settings, logger, the database.
        .target(
            name: "WaymarkCLI",
            dependencies: ["Allocator", "API", "HTTP", "EventStore", "Projections", "Postgres", "Schema"],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "waymark",
            dependencies: ["WaymarkCLI", "Allocator", "Demo", "API", "GRPC", "HTTP", "EventStore", "Projections", "Postgres", "Schema", "JSON", "Signing", "Simulator", "Journey", "ReadModels", "ReadSide"],
            swiftSettings: settings
        ),
        // The benchmarks, apart from the server's binary; `waymark bench` runs this one.
        .executableTarget(
            name: "waymark-bench",
            dependencies: ["WaymarkCLI", "Allocator", "API", "GRPC", "Protobuf", "HTTP", "EventStore", "Projections", "Postgres", "Schema", "JSON", "Signing", "Simulator", "Journey", "Geo", "ReadModels"],
            swiftSettings: settings
        ),

        // Tests.
        .target(name: "TestSupport", dependencies: ["Postgres", "Schema"], path: "Tests/TestSupport", swiftSettings: settings),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: settings),
        .testTarget(name: "GeoTests", dependencies: ["Geo", "Simulator"], swiftSettings: settings),
        .testTarget(name: "JourneyTests", dependencies: ["Journey", "Geo", "JSON", "Simulator"], swiftSettings: settings),
        .testTarget(name: "ReadModelsTests", dependencies: ["ReadModels", "Journey", "Geo", "JSON", "Simulator"], swiftSettings: settings),
        .testTarget(name: "SigningTests", dependencies: ["Signing"], swiftSettings: settings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"], swiftSettings: settings),
        .testTarget(name: "ReadSideTests", dependencies: ["ReadSide", "Projections", "ReadModels", "Postgres", "Schema", "JSON", "TestSupport"], swiftSettings: settings),
        .testTarget(name: "ProjectionsTests", dependencies: ["Projections", "EventStore", "ReadModels", "ReadSide", "Journey", "Postgres", "Schema", "JSON", "TestSupport", "Simulator"], swiftSettings: settings),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "Journey", "JSON", "Geo"], swiftSettings: settings),
        .testTarget(name: "EventStoreTests", dependencies: ["EventStore", "Postgres", "Schema", "JSON", "TestSupport", "Simulator"], swiftSettings: settings),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], swiftSettings: settings),
        .testTarget(name: "APITests", dependencies: ["API", "HTTP", "EventStore", "Projections", "ReadModels", "ReadSide", "Journey", "Geo", "JSON", "Signing", "Postgres", "Schema", "TestSupport"], swiftSettings: settings),
        .testTarget(name: "GRPCTests", dependencies: ["GRPC", "Protobuf", "API", "JSON", "Postgres", "TestSupport"], swiftSettings: settings),
        .testTarget(name: "WaymarkTests", dependencies: ["TestSupport", "Postgres", "JSON", "Signing", "EventStore", "Simulator", "Journey"], swiftSettings: settings),
    ]
)
