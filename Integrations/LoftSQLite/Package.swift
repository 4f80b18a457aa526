// swift-tools-version:6.0
import PackageDescription

// LoftSQLite: a Loft cache on one SQLite database file, for caches too large for a file per key. Its own
// package (Loft by path, GRDB from its registry, the system's SQLite), so that the root package keeps no
// dependency.
let package = Package(
    name: "LoftSQLite",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoftSQLite", targets: ["LoftSQLite"]),
        .executable(name: "LoftSQLiteBenchmarks", targets: ["LoftSQLiteBenchmarks"]),
        .executable(name: "LoftSQLitePlayground", targets: ["LoftSQLitePlayground"]),
    ],
    dependencies: [
        .package(name: "Loft", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .target(name: "LoftSQLite", dependencies: [.product(name: "Loft", package: "Loft"), grdb]),
        // The process the crash and lock tests start: it writes through a client until it is killed, or holds
        // the database's write lock, or opens it as another user.
        .executableTarget(name: "LoftSQLiteProbe", dependencies: ["LoftSQLite", grdb]),
        .executableTarget(name: "LoftSQLiteBenchmarks", dependencies: ["LoftSQLite", grdb], path: "Benchmarks"),
        .executableTarget(
            name: "LoftSQLitePlayground",
            dependencies: ["LoftSQLite", .product(name: "LoftPlayground", package: "Loft")], path: "Playground"),
        .testTarget(
            name: "LoftSQLiteTests",
            dependencies: ["LoftSQLite", .product(name: "LoftTesting", package: "Loft"), grdb]),
    ],
    swiftLanguageModes: [.v6]
)

var grdb: Target.Dependency { .product(name: "GRDB", package: "GRDB.swift") }
