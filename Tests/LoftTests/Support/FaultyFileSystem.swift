import Foundation

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file system, except that writes fail with `errno` while `failure` is set: a full disk (`ENOSPC`)
/// or a read-only volume (`EROFS`) on demand.
final class FaultyFileSystem: FileSystem {
    private let real = POSIXFileSystem()
    private let failure = Locked<Int32?>(nil)

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
        try real.read(path, limit: limit)
    }

    func writeAtomically(_ data: Data, to path: String, temporaryPath: String, flushes: Bool) throws(FileSystemError) {
        try check(path)
        try real.writeAtomically(data, to: path, temporaryPath: temporaryPath, flushes: flushes)
    }

    func remove(_ path: String) throws(FileSystemError) {
        try check(path)
        try real.remove(path)
    }

    func contents(of directory: String) throws(FileSystemError) -> [String] {
        try real.contents(of: directory)
    }
}
