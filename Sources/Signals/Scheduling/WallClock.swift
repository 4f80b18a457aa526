#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system's real-time clock, read by the real-time schedulers only.
package enum WallClock {
    package static func now() -> SchedulerInstant {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return SchedulerInstant(nanosecondsSinceEpoch: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }
}
