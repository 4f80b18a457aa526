import Dispatch
import Signals
import Testing

@testable import Loft

/// `CoalescedRun`: one run at a time; the requests made during a run make exactly one more.
@Suite struct CoalescedRunTests {
    final class Runner: Sendable {
        let run = CoalescedRun()
        let runs = Locked(0)
        let inside = Locked(0)
        let mostInside = Locked(0)

        func request(during body: @Sendable () -> Void = {}) {
            run.run {
                let now = inside.withLock { inside -> Int in
                    inside += 1
                    return inside
                }
                mostInside.withLock { $0 = max($0, now) }
                runs.withLock { $0 += 1 }
                body()
                inside.withLock { $0 -= 1 }
            }
        }
    }

    @Test("requests made inside a run make one more run after it, however many they are, never a nested one")
    func requestsInsideCoalesce() {
        let runner = Runner()
        let calls = Locked(0)
        runner.request {
            let first = calls.withLock { calls -> Bool in
                calls += 1
                return calls == 1
            }
            guard first else { return }
            for _ in 0..<5 { runner.request() }
        }
        #expect(runner.runs.withLock { $0 } == 2)
        #expect(runner.mostInside.withLock { $0 } == 1)
        runner.request()
        #expect(runner.runs.withLock { $0 } == 3)
    }

    @Test("requests from many threads never run two at once, and the last request is followed by a run")
    func concurrentRequestsRunOneAtATime() {
        let runner = Runner()
        let requested = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 {
                requested.withLock { $0 += 1 }
                runner.request()
            }
        }
        let runsAfterAll = runner.runs.withLock { $0 }
        #expect(runner.mostInside.withLock { $0 } == 1)
        #expect(runsAfterAll >= 1)
        #expect(runsAfterAll <= requested.withLock { $0 })
        runner.request()
        #expect(runner.runs.withLock { $0 } == runsAfterAll + 1)
    }
}
