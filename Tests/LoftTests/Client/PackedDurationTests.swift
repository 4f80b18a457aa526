import LoftTesting
import Testing

@testable import Loft

/// `PackedDuration`: an entry's `gcTime` and the key's `staleTime` in 8 bytes, to the nanosecond, and the reads
/// that compare with them.
@Suite struct PackedDurationTests {
    @Test(
        "a gcTime of none, infinity or a duration reads back as given",
        arguments: [nil, GCTime.infinity, .zero, .milliseconds(1), .seconds(300), .duration(.nanoseconds(7))])
    func roundTrip(gcTime: GCTime?) {
        #expect(PackedDuration(gcTime: gcTime).gcTime == gcTime)
    }

    @Test(
        "a staleTime of none, infinity, static or a duration reads back as given",
        arguments: [nil, StaleTime.infinity, .static, .zero, .milliseconds(1), .duration(.nanoseconds(7))])
    func roundTrip(staleTime: StaleTime?) {
        #expect(PackedDuration(staleTime: staleTime).staleTime == staleTime)
    }

    @Test("the longest staleTime is a duration, never static, infinity or none")
    func clampedStaleTime() {
        #expect(
            PackedDuration(staleTime: .duration(.seconds(Int64.max))).staleTime
                == .duration(.nanoseconds(Int64.max - 2)))
        #expect(
            PackedDuration(staleTime: .duration(.seconds(Int64.min))).staleTime
                == .duration(.nanoseconds(Int64.min + 1)))
    }

    @Test("a duration is kept to the nanosecond, toward zero")
    func nanosecondPrecision() {
        let precise = GCTime.duration(Duration(secondsComponent: 2, attosecondsComponent: 1_999_999_999))
        #expect(PackedDuration(gcTime: precise).gcTime == .duration(.seconds(2) + .nanoseconds(1)))
        #expect(PackedDuration(gcTime: precise) == PackedDuration(gcTime: .duration(.seconds(2) + .nanoseconds(1))))
        #expect(PackedDuration(gcTime: .infinity).gcTime == .infinity)
    }

    @Test("a duration too long for 63 bits of nanoseconds is the longest one, never infinity or none")
    func clampedDurations() throws {
        let longest = try #require(PackedDuration(gcTime: .duration(.seconds(Int64.max))).gcTime)
        #expect(longest == .duration(.nanoseconds(Int64.max - 2)))
        #expect(longest < .infinity)
        #expect(PackedDuration(gcTime: .duration(.seconds(Int64.min))).gcTime == .duration(.nanoseconds(Int64.min + 1)))
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
