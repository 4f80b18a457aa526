import Dispatch
import Signals
import TestSupport
import Testing

@Suite struct RealTimeSchedulerTests {
    @Test("ImmediateScheduler runs at once, ignoring delays")
    func immediate() {
        let log = Box<[Int]>([])
        ImmediateScheduler.shared.schedule { log.mutate { $0.append(1) } }
        ImmediateScheduler.shared.schedule(after: .seconds(60)) { log.mutate { $0.append(2) } }
        #expect(log.value == [1, 2])
    }

    @Test("real-time now is the wall clock, in nanoseconds since 1970")
    func wallClock() {
        let seconds = ImmediateScheduler.shared.now.secondsSinceEpoch
        #expect(seconds > 1_700_000_000)
        #expect(DispatchQueue.main.now >= ImmediateScheduler.shared.now - .seconds(1))
    }

    @Test("a dispatch queue runs scheduled work on itself, delayed work in deadline order")
    func dispatchQueue() async {
        let queue = DispatchQueue(label: "scheduler-test")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let log = Locked<[String]>([])
        let scheduling = Locked<Duration>(.zero)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Locked(2)
            let ran: @Sendable (String) -> Void = { name in
                let onQueue = DispatchQueue.getSpecific(key: key) == true
                log.withLock { $0.append(onQueue ? name : "\(name) elsewhere") }
                if remaining.withLock({ count in
                    count -= 1
                    return count
                }) == 0 {
                    continuation.resume()
                }
            }
            let start = queue.now
            queue.schedule(after: .milliseconds(20)) { ran("later") }
            queue.schedule { ran("now") }
            scheduling.withLock { $0 = queue.now - start }
        }
        // "now" is due first unless this thread stalled for the whole delay between the two calls.
        if scheduling.withLock({ $0 }) < .milliseconds(20) {
            #expect(log.withLock { $0 } == ["now", "later"])
        } else {
            #expect(log.withLock { $0 }.sorted() == ["later", "now"])
        }
    }

    @Test("a cancelled dispatch action does not run")
    func dispatchCancel() async {
        let queue = DispatchQueue(label: "scheduler-cancel")
        let ran = Locked(false)
        // Held while the action is scheduled and cancelled, so that a stall of this thread cannot let it run
        // first (its block checks the cancellation when it runs).
        queue.suspend()
        queue.schedule(after: .milliseconds(1)) { ran.withLock { $0 = true } }.cancel()
        queue.resume()
        await withCheckedContinuation { continuation in
            queue.schedule(after: .milliseconds(10)) { continuation.resume() }
        }
        #expect(ran.withLock { $0 } == false)
    }

    @Test("the main-queue scheduler runs its work on the main queue")
    func mainQueue() async {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let onMain = await withCheckedContinuation { continuation in
            MainQueueScheduler.shared.schedule {
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true)
            }
        }
        #expect(onMain)
    }
}
