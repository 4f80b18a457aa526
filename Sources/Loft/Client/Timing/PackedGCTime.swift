/// A `GCTime?` in 8 bytes instead of 17 (24 with its padding): nanoseconds for a duration, `Int64.max` for
/// `.infinity`, `Int64.min` for none. What every entry keeps of its defaults, and a request of its caller's (row (i)).
///
/// A duration is kept to the nanosecond (clamped to what 63 bits hold, about 292 years), as the entry's
/// deadlines are: a value compared with a packed one is packed first, so both have that precision.
struct PackedGCTime: Sendable, Equatable {
    private let nanoseconds: Int64

    private static let none = Int64.min
    private static let infinity = Int64.max

    init(_ gcTime: GCTime?) {
        switch gcTime {
        case nil: nanoseconds = Self.none
        case .infinity: nanoseconds = Self.infinity
        // `Duration.nanoseconds` saturates at Int64's bounds, which are the markers: kept clear of them.
        case .duration(let duration): nanoseconds = min(max(duration.nanoseconds, Self.none + 1), Self.infinity - 1)
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
}
