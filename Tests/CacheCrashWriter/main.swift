// Saves ever-newer records to a JSONFileQueryCache as fast as it can, printing each round number, until it is
// killed. The crash test kills it at random moments and checks that every record is still whole.
import Foundation
import Loft

let arguments = CommandLine.arguments
guard arguments.count == 3, let keyCount = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: CacheCrashWriter DIRECTORY KEY-COUNT\n".utf8))
    exit(2)
}
let cache = JSONFileQueryCache(directory: URL(fileURLWithPath: arguments[1]))
var round = 0
while true {
    round += 1
    for index in 0..<keyCount {
        let record = CrashRecord(round: round, key: index)
        do {
            try cache.save(
                record, for: QueryKey("crash", index), savedAt: SchedulerInstant(secondsSinceEpoch: Int64(round)),
                expiresAt: nil)
        } catch {
            FileHandle.standardError.write(Data("save failed: \(error)\n".utf8))
            exit(1)
        }
    }
    // Unbuffered, so the parent sees each round as soon as it is written.
    FileHandle.standardOutput.write(Data("\(round)\n".utf8))
}
