// The child process of the mutation restart tests, in two modes.
//
// `MutationCrashClient CACHE-DIRECTORY SERVER-LOG REQUEST` submits one saved mutation whose "server" (a log file)
// accepts it and then never answers: the test kills it with SIGKILL after the server accepted, before the call
// could settle, and checks that a new client on the same cache directory sends it again once, same key.
//
// `MutationCrashClient churn CACHE-DIRECTORY SERVER-LOG FIRST COUNT` is one life of an app that the kill test
// ends at random moments: offline, it resumes what the journal holds, submits COUNT new calls (requests
// `rFIRST`...), then goes online and waits until every call settled. It says what happens on its standard output,
// one line each, unbuffered: `resumed N`, `submitted R`, `saved R` (paused, so saved before), `sent R`,
// `settled R` (its record cleared), `failed R ERROR` (cleared too), `done`. The server log gets `IDEMPOTENCY-KEY REQUEST PID` per request.
import Dispatch
import Foundation
import Loft
import LoftTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
let addKey: QueryKey = ["todos", "add"]

/// Writes a line to the standard output at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Appends a line to the server's log and flushes it to the disk. One `write` to a file opened for appending:
/// calls that run at once never write over each other's line.
func accept(_ line: String, log: URL) throws {
    let descriptor = open(log.path, O_WRONLY | O_APPEND)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer { close(descriptor) }
    let bytes = Array((line + "\n").utf8)
    guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else {
        throw CocoaError(.fileWriteUnknown)
    }
}

func churn(cache: URL, log: URL, first: Int, count: Int) async {
    let client = QueryClient(cache: JSONFileQueryCache(directory: cache), isOnline: false)
    let pid = getpid()
    let send: @Sendable (String, MutationCall) async throws -> Int = { request, call in
        try accept("\(call.idempotencyKey) \(request) \(pid)", log: log)
        say("sent \(request)")
        return request.count
    }
    client.setMutationDefaults(MutationDefaults<String, Int>(fetcher: send), for: addKey)
    let subscription = client.events.sink { event in
        guard case .mutation(.updated(let info)) = event, let request = info.request(as: String.self) else { return }
        if info.isPaused { say("saved \(request)") }
        if info.status == .success { say("settled \(request)") }
        if info.status == .error { say("failed \(request) \(info.error.map { "\($0)" } ?? "")") }
    }
    say("resumed \(client.resumePausedMutations())")
    let add = Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: addKey), fetcher: send)
    for index in first..<(first + count) {
        add.execute(with: "r\(index)")
        say("submitted r\(index)")
    }
    await client.until { client.mutations().allSatisfy { $0.status != .pending || $0.isPaused } }
    client.setOnline(true)
    await client.untilMutationsSettled()
    say("done")
    subscription.cancel()
}

if arguments.count == 6, arguments[1] == "churn", let first = Int(arguments[4]), let count = Int(arguments[5]) {
    let (cache, log) = (URL(fileURLWithPath: arguments[2]), URL(fileURLWithPath: arguments[3]))
    Task {
        await churn(cache: cache, log: log, first: first, count: count)
        exit(0)
    }
    dispatchMain()
}

guard arguments.count == 4 else {
    FileHandle.standardError.write(
        Data(
            "usage: MutationCrashClient CACHE-DIRECTORY SERVER-LOG REQUEST | churn CACHE-DIRECTORY SERVER-LOG FIRST COUNT\n"
                .utf8))
    exit(2)
}
let serverLog = URL(fileURLWithPath: arguments[2])
let client = QueryClient(cache: JSONFileQueryCache(directory: URL(fileURLWithPath: arguments[1])))
let add = Mutation<String, Int>(
    client: client, options: MutationOptions(scope: "todos", mutationKey: addKey)
) { request, call in
    try accept("\(call.idempotencyKey) \(request)", log: serverLog)
    // Unbuffered, so the parent sees at once that the server accepted.
    say("accepted")
    // The answer never comes: the process is killed here.
    DispatchSemaphore(value: 0).wait()
    return 0
}
add.execute(with: arguments[3])
dispatchMain()
