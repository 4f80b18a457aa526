import LoftTesting
import Testing

@Suite struct LoftTestingTests {
    @Test("LoftTesting re-exports Loft and Signals, TestScheduler included")
    func reexports() {
        let scheduler = TestScheduler()
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.now == TestScheduler.epoch + .seconds(1))
    }
}
