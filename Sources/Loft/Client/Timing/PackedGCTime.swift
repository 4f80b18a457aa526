/// A `GCTime?` in 8 bytes instead of 17 (24 with its padding): nanoseconds for a duration, `Int64.max` for
/// `.infinity`, `Int64.min` for none. What every entry keeps of its defaults and of its last request (row (i)).
///
/// A duration is kept to the nanosecond (clamped to what 63 bits hold, about 292 years), as the entry's
/// deadlines are; `rounded(_:)` gives the same precision to a value compared with a packed one.
struct PackedGCTime: Sendable, Equatable {
    private let nanoseconds: Int64

    private static let none = Int64.min
    private static let infinity = Int64.max

    init(_ gcTime: GCTime?) {
        switch gcTime {
        case nil: nanoseconds = Self.none
        case .infinity: nanoseconds = Self.infinity
        case .duration(let duration): nanoseconds = Self.nanoseconds(of: duration)
        }
    }

    /// The `GCTime` packed (nil for none).
    var gcTime: GCTime? {
        switch nanoseconds {
        case Self.none: nil
        case Self.infinity: .infinity
        default: .duration(.nanoseconds(nanoseconds))
        }
    }

    /// `gcTime` as it reads once packed: to the nanosecond.
    static func rounded(_ gcTime: GCTime) -> GCTime {
        PackedGCTime(gcTime).gcTime ?? gcTime
    }

    /// `duration` in whole nanoseconds (toward zero), kept clear of the two markers.
    private static func nanoseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !overflowAgain else { return seconds < 0 ? none + 1 : infinity - 1 }
        return min(max(total, none + 1), infinity - 1)
    }
}
