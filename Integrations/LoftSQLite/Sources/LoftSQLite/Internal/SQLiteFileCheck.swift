import Foundation
import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What is at a database's path before SQLite opens it: nothing or a regular file may be opened; a link, a
/// FIFO (which would block a read forever), a directory or a device is refused, and left as it is.
enum SQLiteFileCheck {
    /// Throws `CacheError.unsupportedStore` when `path` (or its `-wal` or `-shm` companion) is something else
    /// than a regular file.
    static func check(_ path: String) throws(CacheError) {
        for candidate in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard lstat(candidate, &status) == 0 else { continue }  // absent: SQLite creates it
            let kind = status.st_mode & S_IFMT
            guard kind != S_IFREG else { continue }
            throw .unsupportedStore(path: candidate, reason: "it is \(describe(kind)), not a database file")
        }
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFDIR: "a directory"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "a special file"
        }
    }
}
