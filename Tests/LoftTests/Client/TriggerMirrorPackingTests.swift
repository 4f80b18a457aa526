import Testing

@testable import Loft

/// The packed mirror of `firstRefetch(on:)`: rounded down, so that it may say "perhaps" for an entry the
/// machine leaves alone, and never "no" for one it refetches.
@Suite struct TriggerMirrorPackingTests {
    private static let start = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    @Test("never says no at or after the instant, for each trigger; nil is never")
    func neverSkipsADueEntry() {
        let offsets: [Duration] = [
            .zero, .nanoseconds(1), .milliseconds(500), .seconds(1), .seconds(2), .seconds(3_600),
        ]
        for first in offsets {
            let instant = Self.start + first
            let mirror = TriggerMirror(focus: instant, reconnect: nil)
            for after in offsets {
                #expect(mirror.mayRefetch(on: .focus, at: instant + after), "\(first) + \(after)")
            }
            #expect(!mirror.mayRefetch(on: .reconnect, at: instant + .seconds(100_000)))
        }
    }

    @Test("says no two seconds or more before the instant; within a unit it may say perhaps")
    func skipsAnEntryNotDueYet() {
        let instant = Self.start + .seconds(60)
        let mirror = TriggerMirror(focus: nil, reconnect: instant)
        #expect(!mirror.mayRefetch(on: .reconnect, at: instant - .seconds(3)))
        #expect(!mirror.mayRefetch(on: .reconnect, at: Self.start))
        #expect(!mirror.mayRefetch(on: .focus, at: instant))
        #expect(TriggerMirror.never == TriggerMirror(focus: nil, reconnect: nil))
    }

    @Test("any instant (before the epoch) is due at once; an instant past what 32 bits hold is still due")
    func extremes() {
        let any = TriggerMirror(focus: Staleness.anyInstant, reconnect: Staleness.anyInstant)
        #expect(any.mayRefetch(on: .focus, at: SchedulerInstant(nanosecondsSinceEpoch: 0)))
        #expect(any.mayRefetch(on: .reconnect, at: SchedulerInstant(nanosecondsSinceEpoch: -5)))
        let far = SchedulerInstant(nanosecondsSinceEpoch: .max - 1)
        let late = TriggerMirror(focus: far, reconnect: far)
        #expect(late.mayRefetch(on: .focus, at: far))
        #expect(!late.mayRefetch(on: .focus, at: Self.start))
    }
}

extension TriggerMirror {
    /// `mayRefetch(on:at:)` at one instant, as a pass asks it with the instant it read once.
    fileprivate func mayRefetch(on trigger: ObserverTally.Trigger, at instant: SchedulerInstant) -> Bool {
        mayRefetch(on: trigger, at: Moment(instant))
    }
}
