// The process the add-on's tests start, to do what a test cannot do in its own process:
//
//     LoftSQLiteProbe write DB FROM      writes through a client until killed: each round saves five keys and a
//                                        journal record, flushes, and prints "acked N"
//     LoftSQLiteProbe hold-lock DB       takes the database's write lock, prints "locked", holds it until its
//                                        standard input closes
//     LoftSQLiteProbe open-as-other DB   opens the database as another user (nobody, when run as root), reads
//                                        and writes a key, and prints what each step gave
import Foundation
import GRDB
import Loft
import LoftSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The value the writer saves: its serial number, and a payload whose length varies with it.
struct Probe: Codable, Sendable, Equatable {
    let serial: Int
    let payload: String
}

/// Writes `line` to the standard output at once (the test reads it while this process runs).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    say("usage: LoftSQLiteProbe write DB FROM | hold-lock DB | open-as-other DB")
    exit(2)
}
let file = URL(fileURLWithPath: arguments[2])

switch arguments[1] {
case "write":
    let from = Int(arguments.count > 3 ? arguments[3] : "0") ?? 0
    do {
        let cache = try SQLiteQueryCache(file: file, durability: .processCrashSafe)
        let client = QueryClient(cache: cache)
        let queries = (0..<20).map { index in
            Query<Void, Probe>(key: ["item", index], options: QueryOptions(retry: .never), client: client) {
                Probe(serial: -1, payload: "")
            }
        }
        var serial = from
        while true {
            for _ in 0..<5 {
                serial += 1
                let probe = Probe(serial: serial, payload: String(repeating: "x", count: serial % 300))
                client.setQueryData(probe, for: ["item", serial % 20])
            }
            // A journal record, as the offline journal writes it: saved at once, the previous one removed.
            try cache.save(Probe(serial: serial, payload: "call"), for: ["loft", "mutations", "call-\(serial)"])
            try cache.remove(for: ["loft", "mutations", "call-\(serial - 5)"])
            await client.flush()
            say("acked \(serial)")
        }
        _ = queries
    } catch {
        say("failed: \(error)")
        exit(1)
    }

case "hold-lock":
    do {
        let queue = try DatabaseQueue(path: file.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            say("locked")
            while let line = readLine(), !line.isEmpty {}
            try db.execute(sql: "ROLLBACK")
        }
    } catch {
        say("failed: \(error)")
        exit(1)
    }

case "open-as-other":
    if getuid() == 0 {
        // nobody: a user that owns nothing here, as an app's user owns nothing of a file another installed.
        guard setgid(65534) == 0, setuid(65534) == 0 else {
            say("failed: cannot become nobody")
            exit(1)
        }
    }
    do {
        let cache = try SQLiteQueryCache(file: file, busyTimeout: .milliseconds(200))
        say("open: ok")
        do {
            let value = try cache.get(Probe.self, for: "kept")?.value
            say("read: \(value.map { "\($0.serial)" } ?? "nil")")
        } catch {
            say("read: \(error)")
        }
        do {
            try cache.save(Probe(serial: 2, payload: "new"), for: "kept")
            say("save: ok")
        } catch {
            say("save: \(error)")
        }
    } catch {
        say("open: \(error)")
    }

default:
    say("unknown mode \(arguments[1])")
    exit(2)
}
