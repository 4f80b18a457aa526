import Dispatch
import Foundation

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file system, except that writes fail with `errno` while `failure` is set: a full disk (`ENOSPC`)
/// or a read-only volume (`EROFS`) on demand. It also records the records written, in order, and can hold
/// writes (a slow disk): a write waits at the gate until `releaseWrites()`. Only a write off the concurrency
/// pool (the client's writer queue) is held; one made inside a task (on a caller's thread) is never held,
/// only counted in `writesInTasks`, so a test of saves behind the caller fails instead of hanging when a save
/// runs on the caller's thread.
final class FaultyFileSystem: FileSystem {
    private struct Gate: Sendable {
        var isHeld = false
        var writesInTasks = 0
        var blocked: [DispatchSemaphore] = []
        var blockedWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let real = POSIXFileSystem()
    private let failure = Locked<Int32?>(nil)
    private let gate = Locked(Gate())
    private let written = Locked<[String]>([])
    private let readCount = Locked(0)

    /// How many files were read so far.
    var reads: Int { readCount.withLock { $0 } }

    /// The file names of the records written so far, in order.
    var writes: [String] { written.withLock { $0 } }

    /// How many writes ran inside a task (on the thread of a caller or of a fetch) rather than on a queue.
    var writesInTasks: Int { gate.withLock { $0.writesInTasks } }

    /// From now on, each write waits until `releaseWrites()`.
    func holdWrites() {
        gate.withLock { $0.isHeld = true }
    }

    /// Lets the waiting writes go, and the later ones through.
    func releaseWrites() {
        let blocked = gate.withLock { gate in
            gate.isHeld = false
            defer { gate.blocked = [] }
            return gate.blocked
        }
        for semaphore in blocked { semaphore.signal() }
    }

    /// Returns once a write waits at the gate (or once a write ran inside a task, which is never held).
    func waitForHeldWrite() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isBlocked = gate.withLock { gate in
                guard gate.blocked.isEmpty, gate.writesInTasks == 0 else { return true }
                gate.blockedWaiters.append(continuation)
                return false
            }
            if isBlocked { continuation.resume() }
        }
    }

    private func passGate() {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        let semaphore = DispatchSemaphore(value: 0)
        let waiters = gate.withLock { gate -> [CheckedContinuation<Void, Never>]? in
            if inTask { gate.writesInTasks += 1 }
            guard gate.isHeld || inTask else { return nil }
            defer { gate.blockedWaiters = [] }
            guard !inTask else { return gate.blockedWaiters }
            gate.blocked.append(semaphore)
            defer { gate.blockedWaiters = [] }
            return gate.blockedWaiters
        }
        guard let waiters else { return }
        for waiter in waiters { waiter.resume() }
        if !inTask { semaphore.wait() }
    }

    func failWrites(with code: Int32?) {
        failure.withLock { $0 = code }
    }

    private func check(_ path: String) throws(FileSystemError) {
        if let code = failure.withLock({ $0 }) { throw FileSystemError(path: path, code: code) }
    }

    func createDirectory(_ path: String) throws(FileSystemError) {
        try check(path)
        try real.createDirectory(path)
    }

    func read(_ path: String, limit: Int) throws(FileSystemError) -> Data? {
        readCount.withLock { $0 += 1 }
        return try real.read(path, limit: limit)
    }

    func writeAtomically(_ data: Data, to path: String, temporaryPath: String, flushes: Bool) throws(FileSystemError) {
        passGate()
        try check(path)
        try real.writeAtomically(data, to: path, temporaryPath: temporaryPath, flushes: flushes)
        written.withLock { $0.append(URL(fileURLWithPath: path).lastPathComponent) }
    }

    func remove(_ path: String) throws(FileSystemError) {
        try check(path)
        try real.remove(path)
    }

    func contents(of directory: String) throws(FileSystemError) -> [String] {
        try real.contents(of: directory)
    }

    func regularFileStatuses(in directory: String, names: [String]) -> [(name: String, status: FileStatus)] {
        real.regularFileStatuses(in: directory, names: names)
    }
}
