import Loft

/// One step of the tour: a title and what it prints.
struct SignalsStep: Sendable {
    let title: String
    let run: @Sendable () -> [String]
}

/// Collects lines from subscriber callbacks, which may run on any thread.
final class Transcript: Sendable {
    private let lines = CurrentValueSubject<[String], Never>([])

    func add(_ line: String) {
        lines.value.append(line)
    }

    var all: [String] { lines.value }
}

let signalsTour: [SignalsStep] = [
    SignalsStep(title: "A subject delivers each value to its subscribers, in subscription order") {
        let transcript = Transcript()
        let temperature = PassthroughSubject<Int, Never>()
        let display = temperature.sink { transcript.add("display shows \($0)°") }
        let logger = temperature.sink { transcript.add("logger records \($0)") }
        temperature.send(21)
        display.cancel()
        temperature.send(22)
        transcript.add("(the display cancelled, so only the logger saw 22)")
        _ = logger
        return transcript.all
    },
    SignalsStep(title: "Operators transform the stream: map, filter, removeDuplicates, scan") {
        let transcript = Transcript()
        let readings = [3, 3, 8, 1, 8, 8, 12].publisher
        let subscription = readings.removeDuplicates()
            .filter { $0 > 2 }
            .map { $0 * 10 }
            .scan(0, +)
            .sink { transcript.add("running total \($0)") }
        _ = subscription
        return transcript.all
    },
    SignalsStep(title: "CurrentValueSubject replays its value to a new subscriber") {
        let transcript = Transcript()
        let user = CurrentValueSubject<String, Never>("guest")
        let header = user.sink { transcript.add("header says hello, \($0)") }
        user.value = "ada"
        _ = header
        return transcript.all
    },
    SignalsStep(title: "Time is injected: debounce runs in virtual time on TestScheduler") {
        let transcript = Transcript()
        let scheduler = TestScheduler()
        let search = PassthroughSubject<String, Never>()
        let subscription = search.debounce(for: .milliseconds(300), scheduler: scheduler)
            .sink { transcript.add("search for \"\($0)\" at +\(TestScheduler.epoch.duration(to: scheduler.now))") }
        for text in ["l", "lo", "lof", "loft"] {
            search.send(text)
            scheduler.advance(by: .milliseconds(100))
        }
        scheduler.advance(by: .seconds(1))
        transcript.add("four keystrokes, one search: no timer waited in real time")
        _ = subscription
        return transcript.all
    },
    SignalsStep(title: "combineLatest joins two streams; errors end a stream unless caught") {
        let transcript = Transcript()
        let name = PassthroughSubject<String, Never>()
        let count = PassthroughSubject<Int, Never>()
        let badge = name.combineLatest(count).sink { transcript.add("\($0.0) has \($0.1) new messages") }
        name.send("ada")
        count.send(2)
        count.send(3)
        let recovered = Fail<Int, PlaygroundError>(error: .offline)
            .catch { _ in Just(-1) }
            .sink { transcript.add("after an error, the fallback value \($0)") }
        _ = (badge, recovered)
        return transcript.all
    },
]

enum PlaygroundError: Error {
    case offline
}
