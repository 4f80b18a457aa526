// swift-tools-version:6.0
import PackageDescription

// ItemService: a Hummingbird service in front of a slow upstream, with Loft as its read-through cache, beside the
// hand-written cache a developer would write instead. An example to copy: Loft and its add-ons by path (named, so
// that the checkout's folder may be called anything), the rest from their registries.
let package = Package(
    name: "ItemService",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ItemService", targets: ["ItemService"]),
        .executable(name: "Upstream", targets: ["Upstream"]),
        .executable(name: "ItemServiceBenchmarks", targets: ["ItemServiceBenchmarks"]),
    ],
    dependencies: [
        .package(name: "Loft", path: "../.."),
        .package(name: "LoftObservability", path: "../../Integrations/LoftObservability"),
        .package(name: "LoftDevtools", path: "../../Integrations/LoftDevtools"),
        .package(name: "LoftPostgres", path: "../../Integrations/LoftPostgres"),
        .package(name: "LoftServiceLifecycle", path: "../../Integrations/LoftServiceLifecycle"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // The service: its stores (Loft's and the hand-written one), routes, configuration and assembly.
        .target(
            name: "ItemServiceKit",
            dependencies: [
                .product(name: "Loft", package: "Loft"),
                .product(name: "LoftObservability", package: "LoftObservability"),
                .product(name: "LoftDevtools", package: "LoftDevtools"),
                .product(name: "LoftPostgres", package: "LoftPostgres"),
                .product(name: "LoftServiceLifecycle", package: "LoftServiceLifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .executableTarget(name: "ItemService", dependencies: ["ItemServiceKit"]),
        // The slow upstream: answers after a configurable delay, counts calls, fails or hangs on request.
        .executableTarget(
            name: "Upstream",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // (q), (r), (s), (t): both stores in the same service, under wrk and a client of its own.
        .executableTarget(
            name: "ItemServiceBenchmarks",
            dependencies: [
                "ItemServiceKit", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(
            name: "ItemServiceTests",
            dependencies: [
                "ItemServiceKit", .product(name: "LoftTesting", package: "Loft"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
