// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Loft",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Signals", targets: ["Signals"]),
        .library(name: "Loft", targets: ["Loft"]),
        .library(name: "LoftTesting", targets: ["LoftTesting"]),
        .executable(name: "Playground", targets: ["Playground"]),
        // The Playground's tour as a library: an add-on runs it with its own provider (`--cache sqlite`).
        .library(name: "LoftPlayground", targets: ["LoftPlayground"]),
        .executable(name: "Benchmarks", targets: ["Benchmarks"]),
    ],
    targets: [
        // The futex calls of `Locked`'s lock on Linux (C: Swift does not import the variadic `syscall`).
        .target(name: "CFutex"),
        .target(
            name: "Signals", dependencies: [.target(name: "CFutex", condition: .when(platforms: [.linux, .android]))]),
        .target(name: "Loft", dependencies: ["Signals"]),
        .target(name: "LoftTesting", dependencies: ["Loft"]),
        .target(name: "LoftPlayground", dependencies: ["Loft"], path: "Playground", exclude: ["Fixtures", "Main"]),
        .executableTarget(name: "Playground", dependencies: ["LoftPlayground"], path: "Playground/Main"),
        .executableTarget(
            name: "Benchmarks", dependencies: ["Loft"], path: "Benchmarks",
            exclude: ["README.md", "Results.md", "InstructionCounts.md", "headline.py"]),
        // The helpers the test targets share (one copy of each).
        .target(name: "TestSupport", dependencies: ["Signals"], path: "Tests/TestSupport"),
        .testTarget(name: "SignalsTests", dependencies: ["Signals", "TestSupport"]),
        .testTarget(
            name: "LoftTests",
            dependencies: ["Loft", "LoftTesting", "TestSupport", "CacheCrashWriter", "MutationCrashClient"]),
        // The child process of the crash test: it writes until killed.
        .executableTarget(name: "CacheCrashWriter", dependencies: ["Loft"], path: "Tests/CacheCrashWriter"),
        // The child process of the mutation restart tests: killed after its server accepted a mutation, or at
        // random moments while it submits, saves and resumes.
        .executableTarget(
            name: "MutationCrashClient", dependencies: ["Loft", "LoftTesting"], path: "Tests/MutationCrashClient"),
        .testTarget(name: "LoftTestingTests", dependencies: ["LoftTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
