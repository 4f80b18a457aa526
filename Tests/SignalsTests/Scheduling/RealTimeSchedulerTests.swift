import Dispatch
import Signals
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
        let log = await withCheckedContinuation { continuation in
            let log = Box<[String]>([])
            queue.schedule(after: .milliseconds(20)) {
                log.mutate { $0.append("later") }
                continuation.resume(returning: log.value)
            }
            queue.schedule { log.mutate { $0.append("now") } }
        }
        #expect(log == ["now", "later"])
    }

    @Test("a cancelled dispatch action does not run")
    func dispatchCancel() async {
        let queue = DispatchQueue(label: "scheduler-cancel")
        let ran = Box(false)
        queue.schedule(after: .milliseconds(1)) { ran.value = true }.cancel()
        await withCheckedContinuation { continuation in
            queue.schedule(after: .milliseconds(10)) { continuation.resume() }
        }
        #expect(ran.value == false)
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
