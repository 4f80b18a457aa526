// The root package's Playground tour with LoftSQLite's provider to choose: its persistence steps save in one
// SQLite database file (`--cache sqlite`, the default here) or in JSON files (`--cache json`).
//
//     swift run LoftSQLitePlayground [--cache sqlite|json] [--cache-dir DIR] [--api URL]
import Foundation
import LoftPlayground
import LoftSQLite

let sqlite = PlaygroundTour.Cache(name: "sqlite") { folder in
    try SQLiteQueryCache(file: folder.appendingPathComponent("loft.sqlite"))
}
exit(await PlaygroundTour.run(arguments: CommandLine.arguments, caches: [sqlite, .json]))
