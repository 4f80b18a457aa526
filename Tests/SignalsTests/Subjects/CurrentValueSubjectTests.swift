import Signals
import TestSupport
import Testing

@Suite struct CurrentValueSubjectTests {
    @Test("a new subscriber gets the current value at once, then later values")
    func replay() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let recorder = subject.record()
        subject.send(2)
        #expect(recorder.values == [1, 2])
    }

    @Test("value is readable and settable; setting it sends")
    func valueProperty() {
        let subject = CurrentValueSubject<String, Never>("a")
        let recorder = subject.record()
        subject.value = "b"
        #expect(subject.value == "b")
        #expect(recorder.values == ["a", "b"])
    }

    @Test("an optional value of nil is a value")
    func optionalValue() {
        let subject = CurrentValueSubject<Int?, Never>(nil)
        #expect(subject.value == nil)
        subject.value = 3
        #expect(subject.value == 3)
    }

    @Test("a subscriber added from a callback gets the replay after the value being delivered")
    func replayIsOrdered() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let log = Box<[String]>([])
        let late = Box<Subscription?>(nil)
        let first = subject.sink { value in
            log.mutate { $0.append("a\(value)") }
            if value == 1 {
                late.value = subject.sink { value in log.mutate { $0.append("late\(value)") } }
                subject.send(2)
            }
        }
        subject.send(1)
        #expect(log.value == ["a0", "a1", "late1", "a2", "late2"])
        _ = first
    }

    @Test("after completion value stays and a late subscriber gets only the completion")
    func completion() {
        let subject = CurrentValueSubject<Int, TestError>(1)
        subject.send(completion: .finished)
        subject.send(5)
        #expect(subject.value == 1)
        #expect(subject.record().events == [.finished])
    }

    @Test("concurrent sets: the last value wins and every subscriber ends on it")
    func stress() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let recorders = (0..<4).map { _ in subject.record() }
        concurrently(4) { worker in
            for index in 1...1_000 { subject.value = worker * 10_000 + index }
        }
        for recorder in recorders {
            #expect(recorder.values.last == subject.value)
            #expect(recorder.values.count == 4_001)
        }
    }
}
