import Foundation
import Loft
import LoftPostgres
import PostgresNIO
import Testing

/// The PostgreSQL server the tests run against: `LOFT_POSTGRES_URL`, which `scripts/postgres-local start`
/// prints. Without it the tests fail, saying how to start one (they never pass by skipping).
enum TestServer {
    static var url: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["LOFT_POSTGRES_URL"], !url.isEmpty else {
                Issue.record(
                    "Set LOFT_POSTGRES_URL: eval \"$(scripts/postgres-local start)\" starts a throwaway server.")
                throw CacheError.unavailable(store: "LOFT_POSTGRES_URL", reason: "not set")
            }
            return url
        }
    }

    /// A table no other test uses.
    static func uniqueTable() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// How long the tests' caches wait for a call, not the default 5 s: on a loaded two-core CI machine a plain
    /// read once took longer than 5 s (and a lock, under the thread sanitizer), and these tests are about what a
    /// call does, not how fast.
    static let timeout: Duration = .seconds(20)

    /// A cache on a table of its own, waiting `timeout` for a call unless told otherwise.
    static func cache(table: String = uniqueTable(), timeout: Duration = TestServer.timeout) throws
        -> PostgresQueryCache
    {
        try PostgresQueryCache(url: url, table: table, timeout: timeout)
    }

    /// Runs `body` on a connection of its own, for what a test does to the database behind the cache's back.
    @discardableResult
    static func withConnection<T>(
        to url: String? = nil, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let configuration = try PostgresCacheConfiguration(url: url ?? self.url)
        let connection = try await PostgresConnection.connect(
            configuration: configuration.connection,
            id: 99, logger: Logger(label: "loft.postgres.tests"))
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

struct Profile: Codable, Equatable, Sendable {
    var id: Int
    var name: String
}

/// A server of one test's own, made by `scripts/postgres-local`, for tests that stop it.
struct OwnServer {
    let directory: URL
    let url: String

    private static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "scripts/postgres-local")

    /// Runs `body` with a new server, stopped (and its files deleted) afterwards, whatever `body` does.
    static func with<T>(_ body: (OwnServer) async throws -> T) async throws -> T {
        let parent = FileManager.default.temporaryDirectory.appending(path: "loft-own-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: parent.path)
        let directory = parent.appending(path: "server")
        do {
            let printed = try await run("start", directory.path)
            let url = try #require(printed.split(separator: "=", maxSplits: 1).last.map { String($0) })
            let server = OwnServer(directory: directory, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            _ = try? await run("stop", directory.path)
            try? FileManager.default.removeItem(at: parent)
            throw error
        }
    }

    func halt() async throws { try await Self.run("halt", directory.path) }
    func resume() async throws { try await Self.run("resume", directory.path) }

    private func stop() async {
        _ = try? await Self.run("stop", directory.path)
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }

    /// Runs the script, awaited (a test thread blocked for seconds would starve the other suites).
    @discardableResult
    private static func run(_ arguments: String...) async throws -> String {
        // Its output goes to a file, read once it exited.
        let output = FileManager.default.temporaryDirectory.appending(path: "loft-script-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw CacheError.unavailable(store: "scripts/postgres-local", reason: "cannot write \(output.path)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(filePath: "/bin/bash")
        process.arguments = [script.path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        let status = try await process.runUntilExit()
        guard status == 0 else {
            throw CacheError.unavailable(store: "scripts/postgres-local", reason: "\(arguments) failed")
        }
        let data = try Data(contentsOf: output)
        return String(decoding: data, as: UTF8.self)
    }
}

extension Process {
    /// Runs the process and returns its exit status once it ended, awaited: a test thread blocked for a
    /// process's seconds would starve the other suites.
    func runUntilExit() async throws -> Int32 {
        try await withCheckedThrowingContinuation { (ended: CheckedContinuation<Int32, any Error>) in
            terminationHandler = { ended.resume(returning: $0.terminationStatus) }
            do {
                try run()
            } catch {
                terminationHandler = nil
                ended.resume(throwing: error)
            }
        }
    }
}
