import LoftTesting
import Testing

@testable import Loft

/// `PackedGCTime`: an entry's `gcTime` in 8 bytes, to the nanosecond, and the reads that compare with it.
@Suite struct PackedGCTimeTests {
    @Test(
        "none, infinity and durations read back as given",
        arguments: [nil, GCTime.infinity, .zero, .milliseconds(1), .seconds(300), .duration(.nanoseconds(7))])
    func roundTrip(gcTime: GCTime?) {
        #expect(PackedGCTime(gcTime).gcTime == gcTime)
    }

    @Test("a duration is kept to the nanosecond, toward zero")
    func nanosecondPrecision() {
        let precise = GCTime.duration(Duration(secondsComponent: 2, attosecondsComponent: 1_999_999_999))
        #expect(PackedGCTime(precise).gcTime == .duration(.seconds(2) + .nanoseconds(1)))
        #expect(PackedGCTime(precise) == PackedGCTime(.duration(.seconds(2) + .nanoseconds(1))))
        #expect(PackedGCTime(.infinity).gcTime == .infinity)
    }

    @Test("a duration too long for 63 bits of nanoseconds is the longest one, never infinity or none")
    func clampedDurations() throws {
        let longest = try #require(PackedGCTime(.duration(.seconds(Int64.max))).gcTime)
        #expect(longest == .duration(.nanoseconds(Int64.max - 1)))
        #expect(longest < .infinity)
        #expect(PackedGCTime(.duration(.seconds(Int64.min))).gcTime == .duration(.nanoseconds(Int64.min + 1)))
    }

    @Test("a read that passes the defaults' gcTime, finer than a nanosecond, is answered from the cache alone")
    func defaultsFinerThanANanosecond() async throws {
        let gcTime = GCTime.duration(.seconds(60) + Duration(secondsComponent: 0, attosecondsComponent: 5))
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(30), gcTime: gcTime))
        _ = try await harness.client.fetchQuery("k", gcTime: gcTime) { 1 }
        let entry = try #require(harness.client.existingEntry(for: "k"))
        // The entry keeps the defaults' own: nothing was recorded as a caller's longer gcTime.
        #expect(entry.storage.withLock { $0.machine.audienceStorage.isEmpty })
        #expect(entry.cachedData(judgedBy: .seconds(30), keeping: gcTime, at: harness.scheduler.now) != nil)
        let value = try await harness.client.fetchQuery("k", gcTime: gcTime) { 2 }
        #expect(value == 1)
    }
}
