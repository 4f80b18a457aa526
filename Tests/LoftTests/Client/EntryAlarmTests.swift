import LoftTesting
import Testing

@testable import Loft

/// An entry's garbage-collection and staleness deadlines ride on alarms of the client's timer queue: data-only
/// heap elements that cannot be cancelled. The entry keeps the true deadlines; these tests pin what that must
/// not change.
@Suite struct EntryAlarmTests {
    @Test("a gc deadline that moved later is kept: the early alarm rings for nothing and the entry sets another")
    func movedDeadlineIsKept() async {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(300)))
        harness.client.setQueryData(1, for: "moved")  // alarm at 300 s
        await harness.advance(by: .seconds(60))
        var consumer: Query<Void, Int>.Consumer? = Query<Void, Int>.Consumer(key: "moved", client: harness.client)
        await harness.advance(by: .seconds(60))
        consumer = nil  // deadline now 420 s; the alarm at 300 s stays
        _ = consumer
        await harness.advance(by: .seconds(180))  // 300 s
        #expect(harness.client.existingEntry(for: "moved") != nil)
        await harness.advance(by: .milliseconds(119_999))
        #expect(harness.client.existingEntry(for: "moved") != nil)
        await harness.advance(by: .milliseconds(1))  // 420 s
        #expect(harness.client.existingEntry(for: "moved") == nil)
        #expect(harness.scheduler.pendingCount == 0)
    }

    @Test("observers coming and going 1,000 times leave at most one alarm waiting per entry")
    func churnLeavesOneAlarm() async {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(300)))
        harness.client.setQueryData(1, for: "churn")
        for _ in 0..<1_000 {
            withExtendedLifetime(Query<Void, Int>.Consumer(key: "churn", client: harness.client)) {}
            harness.scheduler.advance(by: .milliseconds(1))
        }
        #expect(harness.client.context.timers.count == 1)
        // The last consumer left at 0.999 s, so the entry is collected at 300.999 s; the clock is at 1 s.
        await harness.advance(by: .milliseconds(299_998))
        #expect(harness.client.existingEntry(for: "churn") != nil)
        await harness.advance(by: .milliseconds(1))
        #expect(harness.client.existingEntry(for: "churn") == nil)
    }

    @Test("a removed entry's alarm is dropped with it: its successor of the same key keeps its own deadline")
    func successorIgnoresPredecessorsAlarm() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(100)))
        harness.client.setQueryData(1, for: "k")  // alarm at 100 s
        await harness.advance(by: .seconds(50))
        harness.client.removeQueries("k")
        harness.client.setQueryData(2, for: "k")  // a new entry: its alarm at 150 s
        await harness.advance(by: .seconds(50))  // the old alarm was dropped: nothing rings
        #expect(try harness.client.getQueryData("k", as: Int.self) == 2)
        await harness.advance(by: .seconds(50))
        #expect(harness.client.existingEntry(for: "k") == nil)
    }

    @Test("keys churning through a memory budget leave no alarm behind for the entries evicted")
    func evictedEntriesLeaveNoAlarms() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(300)), memoryBudget: .entries(10))
        for id in 0..<2_000 { harness.client.setQueryData(id, for: ["item", id]) }
        #expect(harness.client.memoryUsage == 10)
        // Ten live alarms, and fewer than 64 dropped ones not swept out yet.
        #expect(harness.client.context.timers.count < 10 + 64)
        await harness.advance(by: .seconds(300))
        #expect(harness.client.existingEntry(for: ["item", 1_999]) == nil)
        #expect(harness.client.context.timers.count == 0)
    }

    @Test("staleness is published when data turns stale, after a refresh moved the deadline later")
    func stalenessAfterRefresh() async {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(
            key: "s", behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(10)),
            client: harness.client
        ) { 1 }
        let recorder = PublisherRecorder(query.snapshotPublisher.map(\.isStale))
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(5))
        harness.client.setQueryData(2, for: "s")  // fresh until 15 s
        await harness.advance(by: .seconds(5))  // the alarm at 10 s rings for nothing
        #expect(query.snapshot.isStale == false)
        #expect(recorder.values.last == false)
        await harness.advance(by: .seconds(5))
        #expect(recorder.values.last == true)
    }
}
