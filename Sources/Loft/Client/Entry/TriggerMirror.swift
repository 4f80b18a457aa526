/// An entry's `firstRefetch(on:)` for focus and for reconnect, mirrored in one word that `setFocused` and
/// `setOnline` read with one atomic load, no lock and no event, to pass over the entries a trigger leaves alone.
///
/// Each instant is kept in 32 bits, in units of 2^30 nanoseconds (about 1.07 s) since the epoch, **rounded
/// down**: the mirror may say "perhaps" for an entry the machine then leaves alone (its instant is less than a
/// unit away), never "no" for one it refetches. An instant before the epoch is kept as 0 (perhaps at once),
/// one past the year 2106 as the last unit; "never" has a value of its own. One word instead of two saves the
/// 8 bytes that make the entry's object a 64-byte malloc chunk (row (i)).
struct TriggerMirror: Sendable, Equatable {
    /// Focus in the high half, reconnect in the low one.
    let word: UInt64

    /// Never for either trigger.
    static let never = TriggerMirror(word: .max)

    private static let neverUnits = UInt64(UInt32.max)

    init(word: UInt64) {
        self.word = word
    }

    /// The mirror of the two instants (nil: the trigger never refetches the entry).
    init(focus: SchedulerInstant?, reconnect: SchedulerInstant?) {
        word = Self.units(focus) << 32 | Self.units(reconnect)
    }

    /// An instant in the mirror's units: made once for a pass over many entries.
    struct Moment: Sendable {
        fileprivate let units: UInt64

        init(_ instant: SchedulerInstant) {
            units = TriggerMirror.units(instant)
        }
    }

    /// Whether `trigger` coming at `now` may refetch the entry (false: it certainly does not).
    func mayRefetch(on trigger: ObserverTally.Trigger, at now: Moment) -> Bool {
        let first =
            switch trigger {
            case .focus: word >> 32
            case .reconnect: word & Self.neverUnits
            }
        return first <= now.units
    }

    /// `instant` in whole units since the epoch, rounded down and clamped below "never" (which nil gives).
    private static func units(_ instant: SchedulerInstant?) -> UInt64 {
        guard let instant else { return neverUnits }
        // An arithmetic shift: rounds down, before the epoch too.
        let units = instant.nanosecondsSinceEpoch >> 30
        return UInt64(min(max(units, 0), Int64(neverUnits) - 1))
    }
}
