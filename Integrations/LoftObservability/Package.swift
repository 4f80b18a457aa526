// swift-tools-version:6.0
import PackageDescription

// LoftObservability: a client's fetches, mutations and cache as spans, metrics and logs, on the server
// ecosystem's conventions (swift-distributed-tracing, swift-metrics, swift-log). Its own package (Loft by
// path, the three libraries from their registries), so that the root package keeps no dependency.
let package = Package(
    name: "LoftObservability",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoftObservability", targets: ["LoftObservability"])
    ],
    dependencies: [
        .package(name: "Loft", path: "../.."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .target(
            name: "LoftObservability",
            dependencies: [
                .product(name: "Loft", package: "Loft"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .testTarget(
            name: "LoftObservabilityTests",
            dependencies: [
                "LoftObservability", .product(name: "LoftTesting", package: "Loft"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
