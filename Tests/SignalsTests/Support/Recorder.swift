import Dispatch

@testable import Signals

/// An error for tests.
enum TestError: Error, Equatable {
    case boom
    case other
}

/// What a recorder saw, comparable in one `#expect`.
enum Event<Value: Equatable & Sendable>: Equatable, Sendable, CustomStringConvertible {
    case value(Value)
    case finished
    case failure(String)

    var description: String {
        switch self {
        case .value(let value): "\(value)"
        case .finished: "|"
        case .failure(let error): "x(\(error))"
        }
    }
}

/// A subscriber that records everything it receives, and can cancel.
final class Recorder<Input: Equatable & Sendable, Failure: Error>: Subscriber {
    private struct State: Sendable {
        var events: [Event<Input>] = []
        var subscriptionCount = 0
    }

    private let state = Locked(State())
    private let link = UpstreamLink()
    private let onValue: (@Sendable (Input, Recorder) -> Void)?

    init(onValue: (@Sendable (Input, Recorder) -> Void)? = nil) {
        self.onValue = onValue
    }

    var events: [Event<Input>] { state.withLock { $0.events } }
    var values: [Input] {
        events.compactMap {
            if case .value(let value) = $0 { return value }
            return nil
        }
    }
    var subscriptionCount: Int { state.withLock { $0.subscriptionCount } }
    var isCompleted: Bool {
        events.contains {
            if case .value = $0 { return false }
            return true
        }
    }

    func receive(subscription: Subscription) {
        state.withLock { $0.subscriptionCount += 1 }
        link.attach(subscription)
    }

    func receive(_ input: Input) {
        state.withLock { $0.events.append(.value(input)) }
        onValue?(input, self)
    }

    func receive(completion: Completion<Failure>) {
        state.withLock { state in
            switch completion {
            case .finished: state.events.append(.finished)
            case .failure(let error): state.events.append(.failure("\(error)"))
            }
        }
        link.end(cancellingUpstream: false)
    }

    /// Cancels the subscription, even one that has not arrived yet.
    func cancel() {
        link.end(cancellingUpstream: true)
    }
}

extension Publisher where Output: Equatable {
    /// Subscribes a new recorder and returns it.
    func record(onValue: (@Sendable (Output, Recorder<Output, Failure>) -> Void)? = nil) -> Recorder<Output, Failure> {
        let recorder = Recorder<Output, Failure>(onValue: onValue)
        subscribe(recorder)
        return recorder
    }
}
