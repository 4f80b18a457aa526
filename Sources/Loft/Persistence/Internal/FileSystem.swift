#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A failed file operation: the path and the system's reason.
package struct FileSystemError: Error, Sendable, Equatable {
    package var path: String
    package var code: Int32
    package var reason: String

    package init(path: String, code: Int32) {
        self.path = path
        self.code = code
        reason = String(cString: strerror(code))
    }

    /// A failure with a reason of its own (the file is there, but is not what a record can be).
    package init(path: String, code: Int32, reason: String) {
        self.path = path
        self.code = code
        self.reason = reason
    }
}

/// The file operations `JSONFileQueryCache` needs, so that tests can inject failures (a full disk, a read-only
/// volume) that a test machine cannot produce on demand.
package protocol FileSystem: Sendable {
    func createDirectory(_ path: String) throws(FileSystemError)
    /// The contents of `path`, or nil when it (or its directory) does not exist. Reads only a regular file of
    /// at most `limit` bytes: a symbolic link is never followed, a special file (a FIFO, a device) is never
    /// opened in a way that blocks; each is an error, as is a larger file.
    func read(_ path: String, limit: Int) throws(FileSystemError) -> Data?
    /// Writes `data` to a new temporary file beside `path`, then renames it over `path`: a reader sees the old
    /// contents or the new, never a mix, even if the process dies at any moment. With `flushes`, the file is
    /// flushed to the disk (`fsync`) before the rename, so a power cut cannot leave a renamed but empty file.
    func writeAtomically(_ data: Data, to path: String, temporaryPath: String, flushes: Bool) throws(FileSystemError)
    /// Removes `path`; a missing file is not an error.
    func remove(_ path: String) throws(FileSystemError)
    /// The names in `directory`.
    func contents(of directory: String) throws(FileSystemError) -> [String]
    /// The size and modification time of each regular file among `names` in `directory`, from the file system
    /// alone (a symbolic link is not followed); a name that is anything else, or cannot be asked, is left out.
    func regularFileStatuses(in directory: String, names: [String]) -> [(name: String, status: FileStatus)]
}

/// What the file system says of a regular file without reading it.
package struct FileStatus: Sendable, Equatable {
    package var bytes: Int
    /// Nanoseconds since the Unix epoch.
    package var modified: Int64

    package init(bytes: Int, modified: Int64) {
        self.bytes = bytes
        self.modified = modified
    }
}

/// The real file system, through POSIX calls (errors keep their `errno`).
package struct POSIXFileSystem: FileSystem {
    package init() {}

    package func createDirectory(_ path: String) throws(FileSystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw FileSystemError(path: prefix, code: errno) }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileSystemError(path: path, code: errno) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw FileSystemError(path: path, code: ENOTDIR) }
    }

    package func read(_ path: String, limit: Int) throws(FileSystemError) -> Data? {
        // O_NOFOLLOW: a link (even a dangling one) fails with ELOOP instead of being followed; O_NONBLOCK: a FIFO
        // opens at once instead of waiting for a writer (and is then refused as not a regular file).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            // No file, or no directory where one should be: nothing stored.
            if errno == ENOENT || errno == ENOTDIR { return nil }
            if errno == ELOOP {
                throw FileSystemError(path: path, code: ELOOP, reason: "a symbolic link, which is never followed")
            }
            throw FileSystemError(path: path, code: errno)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(path: path, code: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileSystemError(path: path, code: EINVAL, reason: "not a regular file")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(path: path, code: errno)
            }
            if count == 0 { return data }
            // Checked while reading: a file that grows after `fstat` is still cut off.
            guard data.count + count <= limit else {
                throw FileSystemError(path: path, code: EFBIG, reason: "larger than the limit of \(limit) bytes")
            }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    package func writeAtomically(
        _ data: Data, to path: String, temporaryPath: String, flushes: Bool
    ) throws(FileSystemError) {
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError(path: temporaryPath, code: errno) }
        var failure: Int32?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if flushes, failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporaryPath, path) != 0 { failure = errno }
        if let failure {
            unlink(temporaryPath)
            throw FileSystemError(path: path, code: failure)
        }
    }

    package func remove(_ path: String) throws(FileSystemError) {
        if unlink(path) != 0, errno != ENOENT { throw FileSystemError(path: path, code: errno) }
    }

    package func contents(of directory: String) throws(FileSystemError) -> [String] {
        guard let stream = opendir(directory) else { throw FileSystemError(path: directory, code: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package func regularFileStatuses(in directory: String, names: [String]) -> [(name: String, status: FileStatus)] {
        // Each name is asked relative to the directory, opened once: no path is walked again per file.
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var statuses: [(name: String, status: FileStatus)] = []
        statuses.reserveCapacity(names.count)
        var info = stat()
        for name in names {
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG
            else { continue }
            #if canImport(Darwin)
                let modified = info.st_mtimespec
            #else
                let modified = info.st_mtim
            #endif
            let nanoseconds = Int64(modified.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
            let status = FileStatus(
                bytes: Int(info.st_size),
                modified: nanoseconds.overflow ? .max : nanoseconds.partialValue &+ Int64(modified.tv_nsec))
            statuses.append((name, status))
        }
        return statuses
    }
}

// `read` and `write` are shadowed by the protocol's own names inside the type.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
