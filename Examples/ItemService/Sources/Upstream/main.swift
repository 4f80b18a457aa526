import Foundation
import Hummingbird
import Logging

// The slow upstream the item service stands in front of: every item exists ("item N", version 1 until renamed),
// answered after `--delay-ms`; it counts the calls of each key, and can be told to fail (HTTP 500) or to hang
// (answer after `--hang-seconds`) its reads; a rename always goes through (the benchmarks change an item while
// the reads fail). Prints `ready PORT` once it listens.
//
//     Upstream [--port 8081] [--delay-ms 20] [--hang-seconds 10]
//
// GET /items/:id, PUT /items/:id {"name": …}, GET /stats, POST /stats/reset, GET /calls/:id,
// POST /mode/normal|fail|hang.

/// The upstream's settings, from its arguments.
struct Settings: Sendable {
    var port = 8081
    var delay = Duration.milliseconds(20)
    var hang = Duration.seconds(10)

    init(_ arguments: [String]) {
        var arguments = arguments[...]
        while let flag = arguments.popFirst() {
            guard let value = arguments.popFirst().flatMap({ Int($0) }), value >= 0 else {
                FileHandle.standardError.write(
                    Data("usage: Upstream [--port P] [--delay-ms MS] [--hang-seconds S]\n".utf8))
                exit(2)
            }
            switch flag {
            case "--port": port = value
            case "--delay-ms": delay = .milliseconds(value)
            case "--hang-seconds": hang = .seconds(value)
            default:
                FileHandle.standardError.write(Data("unknown argument \(flag)\n".utf8))
                exit(2)
            }
        }
    }
}

let settings = Settings(Array(CommandLine.arguments.dropFirst()))
let delay = settings.delay
let hang = settings.hang

struct Item: Codable, Sendable {
    var id: Int
    var name: String
    var version: Int
}

enum Mode: String, Sendable {
    case normal, fail, hang
}

/// The upstream's items, the calls it took and how it answers.
actor Upstream {
    private var renamed: [Int: Item] = [:]
    private var calls: [Int: Int] = [:]
    private(set) var mode = Mode.normal

    func called(_ id: Int) -> Mode {
        calls[id, default: 0] += 1
        return mode
    }

    func item(_ id: Int) -> Item {
        renamed[id] ?? Item(id: id, name: "item \(id)", version: 1)
    }

    func rename(_ id: Int, to name: String) -> Item {
        var item = item(id)
        item.name = name
        item.version += 1
        renamed[id] = item
        return item
    }

    func set(_ mode: Mode) {
        self.mode = mode
    }

    func calls(of id: Int) -> Int {
        calls[id, default: 0]
    }

    func stats() -> String {
        #"{"calls":\#(calls.values.reduce(0, +)),"keys":\#(calls.count),"maxPerKey":\#(calls.values.max() ?? 0)}"#
    }

    func reset() {
        calls = [:]
    }
}

func json(_ item: Item) throws -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(item))))
}

let upstream = Upstream()
let router = Router()
router.get("items/:id") { _, context -> Response in
    let id = try context.parameters.require("id", as: Int.self)
    switch await upstream.called(id) {
    case .fail: return Response(status: .internalServerError)
    case .hang: try await Task.sleep(for: hang)
    case .normal: if delay > .zero { try await Task.sleep(for: delay) }
    }
    return try json(await upstream.item(id))
}
router.put("items/:id") { request, context -> Response in
    let id = try context.parameters.require("id", as: Int.self)
    struct Rename: Decodable { let name: String }
    let rename = try await request.decode(as: Rename.self, context: context)
    if delay > .zero { try await Task.sleep(for: delay) }
    return try json(await upstream.rename(id, to: rename.name))
}
router.get("stats") { _, _ in await upstream.stats() }
router.post("stats/reset") { _, _ -> HTTPResponse.Status in
    await upstream.reset()
    return .noContent
}
router.get("calls/:id") { _, context in
    String(await upstream.calls(of: try context.parameters.require("id", as: Int.self)))
}
router.post("mode/:mode") { _, context -> HTTPResponse.Status in
    guard let mode = Mode(rawValue: try context.parameters.require("mode")) else { return .badRequest }
    await upstream.set(mode)
    return .noContent
}

var logger = Logger(label: "upstream")
logger.logLevel = .warning
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: settings.port)),
    onServerRunning: { channel in
        FileHandle.standardOutput.write(Data("ready \(channel.localAddress?.port ?? settings.port)\n".utf8))
    }, logger: logger)
try await app.runService()
