import Loft
@inline(never) func direct(_ subject: PassthroughSubject<Int, Never>) {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    subject.receive(subscriber: sink)
    sink.cancel()
}
let subject = PassthroughSubject<Int, Never>()
direct(subject)
print(subject.subscriberCount)
