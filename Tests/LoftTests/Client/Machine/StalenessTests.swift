import Testing

@testable import Loft

/// The staleness rule as a value: a table of data and `staleTime` in, the instant from which the data is stale
/// (or a trigger refetches) out.
@Suite struct StalenessTests {
    private static let updated = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)
    private static let any = Staleness.anyInstant

    /// What the entry holds.
    enum Held: CustomStringConvertible, Sendable {
        case nothing, data, invalidated

        var snapshot: EntrySnapshot {
            var snapshot = EntrySnapshot()
            guard self != .nothing else { return snapshot }
            snapshot.data = 1
            snapshot.dataUpdatedAt = StalenessTests.updated
            snapshot.isInvalidated = self == .invalidated
            return snapshot
        }

        var description: String {
            switch self {
            case .nothing: "no data"
            case .data: "data"
            case .invalidated: "invalidated data"
            }
        }
    }

    @Test(
        "staleFrom: missing or invalidated data is stale at once, .static data never, other data after its window",
        arguments: [
            (Held.nothing, StaleTime.seconds(10), Optional(any)),
            (.nothing, .static, any),
            (.nothing, .infinity, any),
            (.data, .zero, updated),
            (.data, .seconds(10), updated + .seconds(10)),
            (.data, .infinity, nil),
            (.data, .static, nil),
            (.invalidated, .seconds(10), any),
            (.invalidated, .infinity, any),
            (.invalidated, .static, nil),
        ])
    func staleFrom(held: Held, staleTime: StaleTime, expected: SchedulerInstant?) {
        #expect(Staleness.staleFrom(held.snapshot, judgedBy: staleTime) == expected, "\(held), \(staleTime)")
    }

    @Test(
        "refetchFrom: .always at once, .ifStale once stale, .never never; .static data by no trigger",
        arguments: [
            (Held.data, RefetchTrigger.always, StaleTime.infinity, Optional(any)),
            (.data, .ifStale, .infinity, nil),
            (.data, .ifStale, .seconds(10), updated + .seconds(10)),
            (.data, .never, .zero, nil),
            (.data, .always, .static, nil),
            (.invalidated, .always, .static, nil),
            (.nothing, .always, .static, any),
            (.nothing, .ifStale, .static, any),
            (.nothing, .never, .zero, nil),
            (.invalidated, .ifStale, .infinity, any),
        ])
    func refetchFrom(held: Held, refetches: RefetchTrigger, staleTime: StaleTime, expected: SchedulerInstant?) {
        #expect(
            Staleness.refetchFrom(refetches, judgedBy: staleTime, held.snapshot) == expected,
            "\(held), \(refetches), \(staleTime)")
    }

    @Test("isStale and refetches are the instants compared with now; a disabled observer sees nothing stale")
    func derivedAnswers() {
        let snapshot = Held.data.snapshot
        #expect(!Staleness.isStale(snapshot, judgedBy: .seconds(10), at: Self.updated + .seconds(9)))
        #expect(Staleness.isStale(snapshot, judgedBy: .seconds(10), at: Self.updated + .seconds(10)))
        #expect(!Staleness.isStale(Held.nothing.snapshot, judgedBy: .zero, isEnabled: false, at: Self.updated))
        #expect(!Staleness.refetches(.ifStale, judgedBy: .seconds(10), snapshot, at: Self.updated + .seconds(9)))
        #expect(Staleness.refetches(.ifStale, judgedBy: .seconds(10), snapshot, at: Self.updated + .seconds(10)))
    }
}
