import Signals
import Testing

@Suite struct CombiningOperatorTests {
    @Test("merge interleaves both sides and finishes when both have finished")
    func merge() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = a.merge(with: b).record()
        a.send(1)
        b.send(2)
        a.send(completion: .finished)
        b.send(3)
        #expect(recorder.events == [.value(1), .value(2), .value(3)])
        b.send(completion: .finished)
        #expect(recorder.isCompleted)
    }

    @Test("merge fails on the first failure and cancels the other side")
    func mergeFailure() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = a.merge(with: b).record()
        a.send(completion: .failure(.boom))
        b.send(1)
        #expect(recorder.events == [.failure("boom")])
        #expect(b.subscriberCount == 0)
    }

    @Test("combineLatest emits once both have a value, then on every change")
    func combineLatest() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<String, TestError>()
        let recorder = a.combineLatest(b).map { "\($0)\($1)" }.record()
        a.send(1)
        b.send("x")
        a.send(2)
        b.send("y")
        a.send(completion: .finished)
        #expect(!recorder.isCompleted)
        b.send(completion: .finished)
        #expect(recorder.events == [.value("1x"), .value("2x"), .value("2y"), .finished])
    }

    @Test("combineLatest finishes when a side finishes without a value, and fails on a failure")
    func combineLatestEnds() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let empty = a.combineLatest(b).map { $0 + $1 }.record()
        b.send(completion: .finished)
        #expect(empty.events == [.finished])
        let c = PassthroughSubject<Int, TestError>()
        let d = PassthroughSubject<Int, TestError>()
        let failed = c.combineLatest(d).map { $0 + $1 }.record()
        d.send(completion: .failure(.boom))
        #expect(failed.events == [.failure("boom")])
        #expect(c.subscriberCount == 0)
    }

    @Test("flatMap merges every inner publisher and finishes when all have")
    func flatMap() {
        let upstream = PassthroughSubject<Int, TestError>()
        let inners = (0..<2).map { _ in PassthroughSubject<Int, TestError>() }
        let recorder = upstream.flatMap { inners[$0] }.record()
        upstream.send(0)
        upstream.send(1)
        inners[1].send(10)
        inners[0].send(20)
        upstream.send(completion: .finished)
        inners[0].send(completion: .finished)
        #expect(!recorder.isCompleted)
        inners[1].send(completion: .finished)
        #expect(recorder.events == [.value(10), .value(20), .finished])
    }

    @Test("flatMap fails on an inner failure and cancels everything")
    func flatMapFailure() {
        let upstream = PassthroughSubject<Int, TestError>()
        let inner = PassthroughSubject<Int, TestError>()
        let recorder = upstream.flatMap { _ in inner }.record()
        upstream.send(0)
        inner.send(completion: .failure(.boom))
        #expect(recorder.events == [.failure("boom")])
        #expect(upstream.subscriberCount == 0)
    }

    @Test("switchToLatest follows only the newest inner publisher")
    func switchToLatest() {
        let upstream = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        let recorder = upstream.switchToLatest().record()
        upstream.send(first)
        first.send(1)
        upstream.send(second)
        #expect(first.subscriberCount == 0)
        first.send(2)
        second.send(3)
        upstream.send(completion: .finished)
        #expect(!recorder.isCompleted)
        second.send(completion: .finished)
        #expect(recorder.events == [.value(1), .value(3), .finished])
    }

    @Test("flatMap and switchToLatest build the usual search pipeline")
    func searchPipeline() {
        let query = PassthroughSubject<String, Never>()
        let recorder = query.map { text in Just(text.uppercased()) }.switchToLatest().record()
        query.send("a")
        query.send("b")
        #expect(recorder.values == ["A", "B"])
    }
}
