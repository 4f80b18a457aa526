/// A point in a scheduler's time: nanoseconds since the Unix epoch (1970-01-01T00:00:00Z).
///
/// Real-time schedulers read the wall clock, so an instant saved to disk still means the same moment after a
/// restart; `TestScheduler` starts at a fixed instant and moves only when told to. Arithmetic takes `Duration`
/// and saturates instead of overflowing.
public struct SchedulerInstant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanosecondsSinceEpoch: Int64

    /// Makes the instant `nanosecondsSinceEpoch` after the epoch.
    public init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// Decodes an instant from its number of nanoseconds since the epoch.
    public init(from decoder: any Decoder) throws {
        nanosecondsSinceEpoch = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes the instant as its number of nanoseconds since the epoch: `1767225600000000000`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(nanosecondsSinceEpoch)
    }

    /// Makes the instant `seconds` after the epoch.
    public init(secondsSinceEpoch seconds: Int64) {
        self.nanosecondsSinceEpoch =
            seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? (seconds < 0 ? .min : .max) : seconds * 1_000_000_000
    }

    /// Seconds since the epoch, with a fractional part.
    public var secondsSinceEpoch: Double {
        Double(nanosecondsSinceEpoch) / 1_000_000_000
    }

    /// The instant `duration` later (earlier, when negative).
    public func advanced(by duration: Duration) -> SchedulerInstant {
        advanced(byNanoseconds: duration.nanoseconds)
    }

    /// The instant `nanoseconds` later (earlier, when negative), saturating: for durations converted once and
    /// added often (a `Duration`'s conversion to nanoseconds costs more than the addition).
    package func advanced(byNanoseconds nanoseconds: Int64) -> SchedulerInstant {
        let (sum, overflow) = nanosecondsSinceEpoch.addingReportingOverflow(nanoseconds)
        guard !overflow else { return SchedulerInstant(nanosecondsSinceEpoch: nanoseconds < 0 ? .min : .max) }
        return SchedulerInstant(nanosecondsSinceEpoch: sum)
    }

    /// The time from this instant to `other` (negative when `other` is earlier).
    public func duration(to other: SchedulerInstant) -> Duration {
        .nanoseconds(other.nanosecondsSinceEpoch &- nanosecondsSinceEpoch)
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: SchedulerInstant, rhs: SchedulerInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    /// The instant `rhs` after `lhs`.
    public static func + (lhs: SchedulerInstant, rhs: Duration) -> SchedulerInstant {
        lhs.advanced(by: rhs)
    }

    /// The instant `rhs` before `lhs`.
    public static func - (lhs: SchedulerInstant, rhs: Duration) -> SchedulerInstant {
        lhs.advanced(by: .zero - rhs)
    }

    /// The time from `rhs` to `lhs`.
    public static func - (lhs: SchedulerInstant, rhs: SchedulerInstant) -> Duration {
        rhs.duration(to: lhs)
    }

    /// Seconds since the epoch, for logs: `1767225600.000000000s`.
    public var description: String {
        let seconds = nanosecondsSinceEpoch / 1_000_000_000
        let fraction = abs(nanosecondsSinceEpoch % 1_000_000_000)
        let digits = String(fraction)
        return "\(seconds).\(String(repeating: "0", count: 9 - digits.count))\(digits)s"
    }
}

extension Duration {
    /// This duration in whole nanoseconds, saturating at `Int64`'s bounds.
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !sumOverflow else { return seconds < 0 ? .min : .max }
        return sum
    }

    /// This duration in seconds, with a fractional part.
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
