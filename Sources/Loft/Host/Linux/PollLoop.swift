#if os(Linux)
    import Dispatch
    import Foundation
    import Glibc

    /// A thread of its own that waits with poll(2) on the descriptors a source opened there, and hands each one
    /// that becomes ready to the source, until stopped: how the Linux sources hear the kernel without polling
    /// on a timer.
    ///
    /// **Behavior**
    /// - `start` returns once `open` ran on the thread: with its descriptors watched, or throwing its error.
    /// - `ready` handles a descriptor's events (it must read what made it ready, or poll wakes again at once); an error it returns ends the loop, reported as `failed`.
    /// - `stop()` wakes the thread through a pipe, and returns once the thread closed every descriptor and will
    ///   report nothing more. Stopping twice is stopping once.
    final class PollLoop: Sendable {
        /// A descriptor to watch and the events that wake it.
        struct Watch: Sendable {
            let descriptor: Int32
            let events: Int16
        }

        private let wakeWrite: Int32
        private let finished = DispatchSemaphore(value: 0)
        private let isStopped = Locked(false)

        private init(wakeWrite: Int32) {
            self.wakeWrite = wakeWrite
        }

        /// Starts a thread that runs `open`, then waits on what it returned until stopped.
        ///
        /// - Throws: `HostSignalError` when the wake pipe cannot be made, or `open`'s error.
        static func start(
            open: @escaping @Sendable () throws(HostSignalError) -> [Watch],
            ready: @escaping @Sendable (_ index: Int, _ descriptor: Int32, _ events: Int16) -> HostSignalError?,
            failed: @escaping @Sendable (HostSignalError) -> Void
        ) throws(HostSignalError) -> PollLoop {
            var pipeEnds: [Int32] = [-1, -1]
            guard pipe(&pipeEnds) == 0 else { throw HostSignalError("pipe", code: errno) }
            let (wakeRead, wakeWrite) = (pipeEnds[0], pipeEnds[1])
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            let loop = PollLoop(wakeWrite: wakeWrite)
            let started = DispatchSemaphore(value: 0)
            let startError = Locked<HostSignalError?>(nil)
            Thread.detachNewThread { [finished = loop.finished] in
                defer {
                    close(wakeRead)
                    finished.signal()
                }
                let watches: [Watch]
                do throws(HostSignalError) {
                    watches = try open()
                } catch {
                    startError.withLock { $0 = error }
                    started.signal()
                    return
                }
                started.signal()
                defer { for watch in watches { close(watch.descriptor) } }
                if let error = run(watches, wakeRead: wakeRead, ready: ready) { failed(error) }
            }
            started.wait()
            if let error = startError.withLock({ $0 }) {
                loop.finished.wait()
                close(wakeWrite)
                throw error
            }
            return loop
        }

        /// Waits on `watches` and the wake pipe; returns nil when woken, or the error that ended the loop.
        private static func run(
            _ watches: [Watch], wakeRead: Int32, ready: @Sendable (Int, Int32, Int16) -> HostSignalError?
        ) -> HostSignalError? {
            var descriptors = watches.map { pollfd(fd: $0.descriptor, events: $0.events, revents: 0) }
            descriptors.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            while true {
                let count = poll(&descriptors, nfds_t(descriptors.count), -1)
                if count < 0 {
                    if errno == EINTR { continue }
                    return HostSignalError("poll", code: errno)
                }
                if descriptors[watches.count].revents != 0 { return nil }
                for index in watches.indices where descriptors[index].revents != 0 {
                    let events = descriptors[index].revents
                    descriptors[index].revents = 0
                    if let error = ready(index, descriptors[index].fd, events) { return error }
                }
            }
        }

        /// Wakes the thread and waits until it has closed its descriptors.
        func stop() {
            let first = isStopped.withLock { stopped -> Bool in
                defer { stopped = true }
                return !stopped
            }
            guard first else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            finished.wait()
            close(wakeWrite)
        }
    }

    /// The loop a Linux source runs while started: started once, stopped once.
    struct RunningLoop: Sendable {
        private let loop = Locked<PollLoop?>(nil)

        /// Starts the loop (`PollLoop.start`), its failure reported as `failed`.
        func start(
            open: @escaping @Sendable () throws(HostSignalError) -> [PollLoop.Watch],
            ready: @escaping @Sendable (_ index: Int, _ descriptor: Int32, _ events: Int16) -> HostSignalError?,
            report: @escaping @Sendable (HostSignalChange) -> Void
        ) throws(HostSignalError) {
            let started = try PollLoop.start(open: open, ready: ready, failed: { report(.failed($0)) })
            loop.withLock { $0 = started }
        }

        /// Stops the loop, if it runs; returns once it reports no more.
        func stop() {
            loop.take()?.stop()
        }
    }
#endif
