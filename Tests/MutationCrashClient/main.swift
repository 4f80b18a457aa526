// A client that submits one saved mutation whose "server" (a log file) accepts it and then never answers:
// the restart test kills this process with SIGKILL after the server accepted, before the call could settle,
// and checks that a new client on the same cache directory sends it again once, with the same idempotency key.
import Dispatch
import Foundation
import Loft

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: MutationCrashClient CACHE-DIRECTORY SERVER-LOG REQUEST\n".utf8))
    exit(2)
}
let serverLog = URL(fileURLWithPath: arguments[2])
let client = QueryClient(cache: JSONFileQueryCache(directory: URL(fileURLWithPath: arguments[1])))
let add = Mutation<String, Int>(
    client: client, options: MutationOptions(scope: "todos", mutationKey: ["todos", "add"])
) { request, call in
    let handle = try FileHandle(forWritingTo: serverLog)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\(call.idempotencyKey) \(request)\n".utf8))
    try handle.synchronize()
    try handle.close()
    // Unbuffered, so the parent sees at once that the server accepted.
    FileHandle.standardOutput.write(Data("accepted\n".utf8))
    // The answer never comes: the process is killed here.
    DispatchSemaphore(value: 0).wait()
    return 0
}
add.execute(with: arguments[3])
dispatchMain()
