// swift-tools-version:6.0
import PackageDescription

// LoftPostgres: a Loft cache shared by every instance of a service, on PostgreSQL. Its own package (Loft by
// path, postgres-nio from its registry), so that the root package keeps no dependency.
/// NIO's lock (`NIOLockedValueBox`), the one lock type of the add-on: the thread sanitizer sees its waits,
/// where it reports false races on `Synchronization.Mutex` on Linux.
let concurrencyHelpers: Target.Dependency = .product(name: "NIOConcurrencyHelpers", package: "swift-nio")

let package = Package(
    name: "LoftPostgres",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoftPostgres", targets: ["LoftPostgres"]),
        .executable(name: "LoftPostgresBenchmarks", targets: ["LoftPostgresBenchmarks"]),
        .executable(name: "LoftPostgresDemo", targets: ["LoftPostgresDemo"]),
    ],
    dependencies: [
        .package(name: "Loft", path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // For NIOLockedValueBox, the add-on's one lock type (postgres-nio depends on it already).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        // For the demo only: each instance of the demo service is an HTTP server.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "LoftPostgres",
            dependencies: [
                .product(name: "Loft", package: "Loft"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                concurrencyHelpers,
            ]),
        .executableTarget(
            name: "LoftPostgresBenchmarks",
            dependencies: ["LoftPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), concurrencyHelpers],
            path: "Benchmarks"),
        .executableTarget(
            name: "LoftPostgresDemo",
            dependencies: [
                "LoftPostgres", concurrencyHelpers, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Demo"),
        .testTarget(
            name: "LoftPostgresTests",
            dependencies: [
                "LoftPostgres", .product(name: "LoftTesting", package: "Loft"),
                .product(name: "PostgresNIO", package: "postgres-nio"), concurrencyHelpers,
            ]),
    ],
    swiftLanguageModes: [.v6]
)
