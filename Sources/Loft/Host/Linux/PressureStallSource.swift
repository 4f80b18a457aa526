#if os(Linux)
    import Foundation
    import Glibc

    /// Memory pressure on Linux, live: pressure-stall (PSI) triggers registered on the cgroup's
    /// `memory.pressure` when the process's cgroup (v2) has one, else on `/proc/pressure/memory`. The kernel
    /// wakes the source (`POLLPRI`) when tasks stalled on memory for longer than a trigger's threshold within
    /// its window; nothing is read on a timer.
    struct PressureStallSource: HostSignalSource {
        /// One trigger: the file it is registered on, what is written to register it (nil: nothing, for a
        /// stand-in), the level it reports and the poll events that wake it.
        struct Trigger: Sendable {
            let path: String
            let registration: String?
            let level: MemoryPressure
            let events: Int16

            /// A pressure-stall trigger: `kind` is `some` (a task stalled) or `full` (every task did).
            static func stall(
                _ kind: String, _ threshold: Duration, within window: Duration, on path: String, _ level: MemoryPressure
            ) -> Trigger {
                // The kernel takes both in microseconds.
                Trigger(
                    path: path, registration: "\(kind) \(threshold.nanoseconds / 1_000) \(window.nanoseconds / 1_000)",
                    level: level, events: Int16(POLLPRI))
            }
        }

        let name = "memory pressure"
        let triggers: [Trigger]
        private let loop = RunningLoop()

        init(triggers: [Trigger]) {
            self.triggers = triggers
        }

        /// The host's triggers: a warning when some task stalled on memory 100 ms within 2 s, critical when every
        /// task did (the kernel takes windows from 500 ms to 10 s; some kernels accept only whole seconds).
        static func host() -> PressureStallSource {
            let path = pressureFile()
            return PressureStallSource(triggers: [
                .stall("some", .milliseconds(100), within: .seconds(2), on: path, .warning),
                .stall("full", .milliseconds(100), within: .seconds(2), on: path, .critical),
            ])
        }

        /// The cgroup's `memory.pressure` when the process is in a cgroup v2 that has one, else the system's.
        static func pressureFile() -> String {
            if let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
                let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
            {
                let file = "/sys/fs/cgroup" + line.dropFirst(3) + "/memory.pressure"
                if access(file, R_OK | W_OK) == 0 { return file }
            }
            return "/proc/pressure/memory"
        }

        func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
            let triggers = triggers
            try loop.start(
                open: { () throws(HostSignalError) -> [PollLoop.Watch] in
                    var watches: [PollLoop.Watch] = []
                    do throws(HostSignalError) {
                        for trigger in triggers {
                            let descriptor = try Self.register(trigger)
                            watches.append(PollLoop.Watch(descriptor: descriptor, events: trigger.events))
                        }
                    } catch {
                        for watch in watches { close(watch.descriptor) }
                        throw error
                    }
                    return watches
                },
                ready: { index, descriptor, events in
                    if events & Int16(POLLERR | POLLNVAL) != 0 {
                        // The file's monitor is gone (its cgroup was removed).
                        return HostSignalError("pressure trigger on \(triggers[index].path)", code: EIO)
                    }
                    Self.drain(descriptor)
                    report(.memoryPressure(triggers[index].level))
                    return nil
                },
                report: report)
        }

        func stop() {
            loop.stop()
        }

        /// Opens `trigger`'s file and writes its registration (with the terminating zero the kernel reads).
        private static func register(_ trigger: Trigger) throws(HostSignalError) -> Int32 {
            let descriptor = open(trigger.path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw HostSignalError("open \(trigger.path)", code: errno) }
            guard let registration = trigger.registration else { return descriptor }
            var bytes = Array(registration.utf8)
            bytes.append(0)
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == bytes.count else {
                let code = written < 0 ? errno : EIO
                close(descriptor)
                throw HostSignalError("register trigger \"\(registration)\" on \(trigger.path)", code: code)
            }
            return descriptor
        }

        /// Reads what is readable (a stand-in's bytes; the pressure file's figures), so the next wake is a new
        /// event.
        private static func drain(_ descriptor: Int32) {
            var buffer = [UInt8](repeating: 0, count: 512)
            while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        }
    }
#endif
