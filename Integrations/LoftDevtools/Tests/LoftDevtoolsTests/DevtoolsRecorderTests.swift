import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftDevtools

/// The recorder listens to the client only while a page watches; it keeps each key's fetches (bounded), the
/// timeline (bounded), and sends every event to the pages open.
@Suite(.timeLimit(.minutes(1))) struct DevtoolsRecorderTests {
    let harness = TestQueryClient()

    @Test("nothing is listened to until a page watches, and nothing once the last one left")
    func listensOnlyWhileWatched() async throws {
        let recorder = DevtoolsRecorder(client: harness.client, historyPerKey: 5, timelineLength: 10)
        _ = try await harness.client.fetchQuery("before") { 1 }
        #expect(!recorder.isListening && recorder.history(of: "before").isEmpty)
        do {
            let page = recorder.watch()
            #expect(recorder.isListening)
            _ = try await harness.client.fetchQuery("during") { 1 }
            await harness.client.waitUntilIdle()
            #expect(recorder.history(of: "during").map(\.outcome) == ["success"])
            _ = page
        }
        // The page's stream is gone: its end stopped the listening.
        #expect(!recorder.isListening)
        _ = try await harness.client.fetchQuery("after") { 1 }
        await harness.client.waitUntilIdle()
        #expect(recorder.history(of: "after").isEmpty)
    }

    @Test("a watching page gets each event as a JSON line with its kind, key and text")
    func linesReachThePage() async throws {
        let recorder = DevtoolsRecorder(client: harness.client, historyPerKey: 5, timelineLength: 10)
        let stream = recorder.watch()
        harness.client.setQueryData(1, for: ["users", 1])
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let line = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: String])
        #expect(line["type"] == "added" && line["key"] == "users/1" && line["keyJSON"] == #"["users",1]"#)
        recorder.closeAll()
    }

    @Test("history is bounded per key and goes with the entry; the timeline is bounded; retries and reasons kept")
    func bounded() async throws {
        let recorder = DevtoolsRecorder(client: harness.client, historyPerKey: 3, timelineLength: 4)
        let page = recorder.watch()
        for value in 0..<5 { _ = try await harness.client.fetchQuery("n", staleTime: .zero) { value } }
        await harness.client.waitUntilIdle()
        #expect(recorder.history(of: "n").count == 3)
        #expect(recorder.timeline().count == 4)
        harness.client.removeQueries("n")
        #expect(recorder.history(of: "n").isEmpty)
        let failing = ScriptedFetcher<Void, Int>(.fail(URLError(.timedOut)), .answer(1))
        let query = Query(
            key: "r", behavior: .startImmediately(()), options: QueryOptions(retry: .count(1)), client: harness.client,
            fetcher: failing.fetch)
        await harness.client.waitUntilIdle()  // the first attempt failed, the retry waits on the clock
        await harness.advance(by: .seconds(5))
        await harness.client.waitUntilIdle()
        #expect(recorder.history(of: "r").map { "\($0.reason) \($0.outcome) \($0.retries)" } == ["firstUse success 1"])
        _ = (page, query)
    }
}
