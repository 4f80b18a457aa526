import Loft
import Testing

// Every ```swift block of README.md, verbatim, so that the README's code compiles and runs.
// `.ci/check-readme-examples.py` fails CI when a README block is missing from this file.

enum DownloadError: Error {
    case offline
}

@Suite struct ReadmeExamplesTests {
    @Test("subjects and subscriptions")
    func subjects() {
        let temperature = PassthroughSubject<Int, Never>()
        var subscriptions = Set<Subscription>()
        temperature.sink { print("now \($0)°") }.store(in: &subscriptions)
        temperature.send(21)  // prints "now 21°"
        subscriptions.removeAll()  // cancels
        temperature.send(22)  // nobody is listening
        #expect(temperature.subscriberCount == 0)
    }

    @Test("current value subject")
    func currentValue() {
        let user = CurrentValueSubject<String, Never>("guest")
        let header = user.sink { print("hello, \($0)") }  // prints "hello, guest" at once
        user.value = "ada"  // prints "hello, ada"
        header.cancel()
        #expect(user.subscriberCount == 0)
    }

    @Test("completion")
    func completion() {
        let download = PassthroughSubject<Int, DownloadError>()
        let progress = download.sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { print("failed: \(error)") }
            },
            receiveValue: { print("\($0)%") }
        )
        download.send(50)
        download.send(completion: .failure(.offline))  // prints "failed: offline"
        _ = progress
    }

    @Test("operators")
    func operators() {
        let total = [3, 3, 8, 1, 8, 12].publisher
            .removeDuplicates()
            .filter { $0 > 2 }
            .map { $0 * 10 }
            .scan(0, +)
            .sink { print("running total \($0)") }  // 30, 110, 190, 310
        _ = total
    }

    @Test("combineLatest")
    func combineLatest() {
        let name = PassthroughSubject<String, Never>()
        let count = PassthroughSubject<Int, Never>()
        let badge = name.combineLatest(count)
            .map { "\($0) has \($1) new messages" }
            .sink { print($0) }
        name.send("ada")
        count.send(2)  // prints "ada has 2 new messages"
        _ = badge
    }

    @Test("sources")
    func sources() {
        let answer = Future<Int, Never> { promise in
            promise(.success(42))
        }
        let fromAsync = AsyncFuture { () async throws -> String in
            "fetched"
        }
        let both = answer.sink { print($0) }  // prints 42
        let later = fromAsync.sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
        _ = (both, later)
    }

    @Test("virtual time")
    func virtualTime() {
        let scheduler = TestScheduler()
        let search = PassthroughSubject<String, Never>()
        let debounced = search.debounce(for: .milliseconds(300), scheduler: scheduler)
        let results = debounced.sink { print("search for \($0)") }
        search.send("lo")
        search.send("loft")
        scheduler.advance(by: .milliseconds(300))  // prints "search for loft"
        _ = results
        #expect(scheduler.pendingCount == 0)
    }

    @Test("async values")
    func asyncValues() async {
        func printAll() async {
            for await value in [1, 2, 3].publisher.values {
                print(value)
            }
        }
        await printAll()
    }

    @Test("Loft re-exports Signals: one import is enough")
    func reexport() {
        let subject: any Signals.Publisher<Int, Never> = Just(1)
        _ = subject
    }
}
