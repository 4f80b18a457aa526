// swift-tools-version:6.0
import PackageDescription

// LoftDevtools: a live page of a client's cache, served by the process on 127.0.0.1. Its own package (Loft
// by path, Hummingbird from its registry), so that the root package keeps no dependency.
let package = Package(
    name: "LoftDevtools",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoftDevtools", targets: ["LoftDevtools"]),
        .executable(name: "LoftDevtoolsDemo", targets: ["LoftDevtoolsDemo"]),
        .executable(name: "LoftDevtoolsPlayground", targets: ["LoftDevtoolsPlayground"]),
        .executable(name: "LoftDevtoolsBenchmarks", targets: ["LoftDevtoolsBenchmarks"]),
    ],
    dependencies: [
        .package(name: "Loft", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Hummingbird's own dependency: the server is stopped by a graceful shutdown of its service group.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "LoftDevtools",
            dependencies: [
                .product(name: "Loft", package: "Loft"), .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources/devtools.html")]),
        // The program the browser test drives, and that a user opens first: a client with keys, commands on
        // its standard input.
        .executableTarget(name: "LoftDevtoolsDemo", dependencies: ["LoftDevtools"]),
        .executableTarget(
            name: "LoftDevtoolsPlayground",
            dependencies: ["LoftDevtools", .product(name: "LoftPlayground", package: "Loft")], path: "Playground"),
        .executableTarget(name: "LoftDevtoolsBenchmarks", dependencies: ["LoftDevtools"], path: "Benchmarks"),
        .testTarget(
            name: "LoftDevtoolsTests",
            dependencies: [
                "LoftDevtools", .product(name: "LoftTesting", package: "Loft"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
