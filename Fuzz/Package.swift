// swift-tools-version:6.0
import PackageDescription

// The checks behind the fuzz targets of the parsers that read what others wrote: a cache record, a query key in
// JSON, and the mapping of a key to a file name. Its own package (Loft by path), so the root stays as it is.
// `bash Fuzz/run` builds it with the fuzzer's instrumentation, links each entry point of `Targets/` with
// libFuzzer, and runs each on its seed corpus (`Corpus/`) for a bounded time; CI does.
let package = Package(
    name: "LoftFuzz",
    platforms: [.macOS(.v15)],
    products: [.library(name: "FuzzChecks", targets: ["FuzzChecks"])],
    dependencies: [.package(name: "Loft", path: "..")],
    targets: [
        .target(name: "FuzzChecks", dependencies: [.product(name: "Loft", package: "Loft")])
    ],
    swiftLanguageModes: [.v6]
)
