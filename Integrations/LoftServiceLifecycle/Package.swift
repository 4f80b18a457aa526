// swift-tools-version:6.0
import PackageDescription

// LoftServiceLifecycle: a client as a service of swift-service-lifecycle, so that a server stops with what it
// queued written. Its own package (Loft by path), so that the root package keeps no dependency.
let package = Package(
    name: "LoftServiceLifecycle",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoftServiceLifecycle", targets: ["LoftServiceLifecycle"])
    ],
    dependencies: [
        .package(name: "Loft", path: "../.."),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "LoftServiceLifecycle",
            dependencies: [
                .product(name: "Loft", package: "Loft"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "LoftServiceLifecycleTests",
            dependencies: [
                "LoftServiceLifecycle", .product(name: "LoftTesting", package: "Loft"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
