/// A `GCTime?` or a `StaleTime?` in 8 bytes instead of 17 or 18 (24 with padding): nanoseconds for a duration,
/// `Int64.max` for `.infinity`, `Int64.max - 1` for `.static` (a `StaleTime`'s), `Int64.min` for none. What
/// every entry keeps of its defaults' `gcTime`, a caller's `gcTime` and the key's `staleTime` (row (i)).
///
/// A duration is kept to the nanosecond (clamped to what 63 bits hold, about 292 years), as the entry's
/// deadlines are: a value compared with a packed one is packed first, so both have that precision. A value is
/// read back through the view of the type it was made from (`gcTime`, `staleTime`).
struct PackedDuration: Sendable, Equatable {
    private let nanoseconds: Int64

    private static let none = Int64.min
    private static let infinity = Int64.max
    private static let `static` = Int64.max - 1

    init(gcTime: GCTime?) {
        switch gcTime {
        case nil: nanoseconds = Self.none
        case .infinity: nanoseconds = Self.infinity
        case .duration(let duration): nanoseconds = Self.clamped(duration)
        }
    }

    init(staleTime: StaleTime?) {
        switch staleTime {
        case nil: nanoseconds = Self.none
        case .infinity: nanoseconds = Self.infinity
        case .static: nanoseconds = Self.static
        case .duration(let duration): nanoseconds = Self.clamped(duration)
        }
    }

    /// `Duration.nanoseconds` saturates at Int64's bounds, which are markers: kept clear of every marker.
    private static func clamped(_ duration: Duration) -> Int64 {
        min(max(duration.nanoseconds, none + 1), `static` - 1)
    }

    /// The `GCTime` packed (nil for none).
    var gcTime: GCTime? {
        switch nanoseconds {
        case Self.none: nil
        case Self.infinity: .infinity
        default: .duration(.nanoseconds(nanoseconds))
        }
    }

    /// The `StaleTime` packed (nil for none).
    var staleTime: StaleTime? {
        switch nanoseconds {
        case Self.none: nil
        case Self.infinity: .infinity
        case Self.static: .static
        default: .duration(.nanoseconds(nanoseconds))
        }
    }
}
