// swift-tools-version:6.0
import PackageDescription

// LoftPostgres: a Loft cache shared by every instance of a service, on PostgreSQL. Its own package (Loft by
// path, postgres-nio from its registry), so that the root package keeps no dependency.
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
    ],
    targets: [
        .target(
            name: "LoftPostgres",
            dependencies: [
                .product(name: "Loft", package: "Loft"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .executableTarget(
            name: "LoftPostgresBenchmarks",
            dependencies: ["LoftPostgres", .product(name: "PostgresNIO", package: "postgres-nio")], path: "Benchmarks"),
        .executableTarget(name: "LoftPostgresDemo", dependencies: ["LoftPostgres"], path: "Demo"),
        .testTarget(
            name: "LoftPostgresTests",
            dependencies: ["LoftPostgres", .product(name: "PostgresNIO", package: "postgres-nio")]),
    ],
    swiftLanguageModes: [.v6]
)
