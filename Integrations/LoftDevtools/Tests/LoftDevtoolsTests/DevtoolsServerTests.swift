import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftDevtools

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The devtools served for real on 127.0.0.1: the page, a page of the cache, a key's detail, the actions
/// performing the client's operations, the token, and unmounting.
@Suite(.timeLimit(.minutes(1))) struct DevtoolsServerTests {
    let harness = TestQueryClient()

    /// `path` of the devtools, with the token when given; the status and the body.
    func get(_ devtools: LoftDevtools, _ path: String, token: String? = nil) async throws -> (Int, Data) {
        var components = try #require(URLComponents(url: devtools.url, resolvingAgainstBaseURL: false))
        let parts = path.split(separator: "?", maxSplits: 1)
        components.path = String(parts[0])
        var items = parts.count > 1 ? (URLComponents(string: "?" + parts[1])?.queryItems ?? []) : []
        if let token { items.append(URLQueryItem(name: "token", value: token)) }
        components.queryItems = items.isEmpty ? nil : items
        let (data, response) = try await URLSession.shared.data(from: try #require(components.url))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func post(_ devtools: LoftDevtools, _ path: String, _ body: String) async throws -> Int {
        var request = URLRequest(url: devtools.url.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("the page is one self-contained file: no address outside the server it came from")
    func page() async throws {
        let devtools = try await LoftDevtools.mount(on: harness.client)
        let (status, body) = try await get(devtools, "/")
        let html = String(decoding: body, as: UTF8.self)
        #expect(status == 200 && html.contains("<title>Loft devtools</title>"))
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("//cdn"))
        await devtools.unmount()
    }

    @Test("the state is a page of 200 keys at most, filtered by the server, with the total")
    func paging() async throws {
        for index in 0..<450 { harness.client.setQueryData(index, for: ["item", index]) }
        harness.client.setQueryData("x", for: "other")
        let devtools = try await LoftDevtools.mount(on: harness.client)
        let first = try json(try await get(devtools, "/api/state").1)
        #expect(first["total"] as? Int == 451)
        #expect((first["entries"] as? [Any])?.count == 200)
        let last = try json(try await get(devtools, "/api/state?offset=400").1)
        #expect((last["entries"] as? [Any])?.count == 51)
        let filtered = try json(try await get(devtools, "/api/state?filter=OTHER").1)
        let keys = (filtered["entries"] as? [[String: Any]])?.compactMap { $0["key"] as? String }
        #expect(keys == ["other"] && filtered["total"] as? Int == 1)
        await devtools.unmount()
    }

    @Test("a key's detail holds its data as JSON, its staleTime and its fetches with their reasons")
    func detail() async throws {
        let devtools = try await LoftDevtools.mount(on: harness.client)
        let watching = devtools.watchForTests()
        let query = Query<Void, [String: Int]>(
            key: ["users", 1], behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(30)),
            client: harness.client
        ) { ["id": 1] }
        await harness.client.waitUntilIdle()
        let key = try #require("[\"users\",1]".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let detail = try json(try await get(devtools, "/api/entry?key=\(key)").1)
        #expect(detail["data"] as? String == #"{"id":1}"#)
        #expect(detail["staleTime"] as? String == "30s" || (detail["staleTime"] as? String)?.contains("30") == true)
        let history = try #require(detail["history"] as? [[String: Any]])
        #expect(history.map { $0["reason"] as? String } == ["firstUse"])
        #expect(history.map { $0["outcome"] as? String } == ["success"])
        #expect(try await get(devtools, "/api/entry?key=%5B%22missing%22%5D").0 == 404)
        watching.cancel()
        await devtools.unmount()
        _ = query
    }

    @Test("the actions perform the client's operations: invalidate refetches, remove removes, offline pauses")
    func actions() async throws {
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        let query = Query(
            key: "n", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        let devtools = try await LoftDevtools.mount(on: harness.client)
        #expect(try await post(devtools, "/api/action", #"{"action":"invalidate","key":"[\"n\"]"}"#) == 204)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 2 && query.state.value == 2)
        #expect(try await post(devtools, "/api/environment", #"{"online":false,"focused":false}"#) == 204)
        #expect(!harness.client.isOnline && !harness.client.isFocused)
        harness.client.setQueryData(5, for: "gone")
        #expect(try await post(devtools, "/api/action", #"{"action":"remove","key":"[\"gone\"]"}"#) == 204)
        #expect(harness.client.queryInfos(under: "gone").isEmpty)
        #expect(try await post(devtools, "/api/action", #"{"action":"explode","key":"[\"n\"]"}"#) == 400)
        await devtools.unmount()
    }

    @Test("another address than loopback needs a token; with one, a request without it is refused")
    func token() async throws {
        await #expect(throws: DevtoolsError.tokenRequired(host: "0.0.0.0")) {
            try await LoftDevtools.mount(on: harness.client, options: LoftDevtools.Options(host: "0.0.0.0"))
        }
        let devtools = try await LoftDevtools.mount(
            on: harness.client, options: LoftDevtools.Options(host: "127.0.0.1", token: "s3cret"))
        #expect(devtools.url.query == "token=s3cret")
        #expect(try await get(devtools, "/api/state").0 == 401)
        #expect(try await get(devtools, "/api/state", token: "wrong").0 == 401)
        #expect(try await get(devtools, "/api/state", token: "s3cret").0 == 200)
        await devtools.unmount()
    }

    @Test("a taken port is a typed error; after unmount nothing is served")
    func portAndUnmount() async throws {
        let devtools = try await LoftDevtools.mount(on: harness.client)
        let port = try #require(devtools.url.port)
        await #expect {
            try await LoftDevtools.mount(on: harness.client, options: LoftDevtools.Options(port: port))
        } throws: { error in
            if case .cannotServe(_, let taken, _) = error as? DevtoolsError { taken == port } else { false }
        }
        await devtools.unmount()
        await #expect(throws: (any Error).self) { try await get(devtools, "/api/state") }
    }
}
