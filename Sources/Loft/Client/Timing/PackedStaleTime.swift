/// A `StaleTime?` in 8 bytes instead of 18: nanoseconds for a duration, `Int64.max` for `.infinity`,
/// `Int64.max - 1` for `.static`, `Int64.min` for none. What every entry's snapshot keeps of the key's
/// freshness (row (i)).
///
/// A duration is kept to the nanosecond (clamped to what 63 bits hold, about 292 years), as `PackedGCTime`
/// keeps a `gcTime`: a value compared with a packed one is packed first, so both have that precision.
struct PackedStaleTime: Sendable, Equatable {
    private let nanoseconds: Int64

    private static let none = Int64.min
    private static let infinity = Int64.max
    private static let `static` = Int64.max - 1

    init(_ staleTime: StaleTime?) {
        switch staleTime {
        case nil: nanoseconds = Self.none
        case .infinity: nanoseconds = Self.infinity
        case .static: nanoseconds = Self.static
        // `Duration.nanoseconds` saturates at Int64's bounds: kept clear of the markers.
        case .duration(let duration): nanoseconds = min(max(duration.nanoseconds, Self.none + 1), Self.static - 1)
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
