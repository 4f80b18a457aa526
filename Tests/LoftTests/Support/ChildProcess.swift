import Foundation

/// The executables that tests run as child processes, built beside the test bundle.
enum ChildProcess {
    /// The path of the executable `name`, if it was built.
    static func executable(_ name: String) -> URL? {
        let candidates =
            [
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                Bundle.main.bundleURL.deletingLastPathComponent(),
                Bundle.main.bundleURL,
            ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map {
            URL(fileURLWithPath: $0).deletingLastPathComponent()
        }
        return ([executable].compactMap { $0 } + candidates)
            .map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
