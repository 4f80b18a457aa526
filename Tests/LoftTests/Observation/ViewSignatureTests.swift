import Signals
import Testing

@testable import Loft

/// "Which state case" is stated twice, for speed: by `QuerySnapshot.state` (typed) and by
/// `ViewSignature.stateCase` (without generic code, what views decide on). The two must agree on every
/// combination of the fields they read.
@Suite struct ViewSignatureTests {
    private struct Failure: Error {}

    /// Every combination of data, error, status and fetch status a snapshot can carry.
    private static let snapshots: [QuerySnapshot<Int>] = {
        var snapshots: [QuerySnapshot<Int>] = []
        for data in [nil, 1] as [Int?] {
            for error in [nil, Failure()] as [(any Error)?] {
                for status in [QueryStatus.pending, .success, .error] {
                    for fetchStatus in [FetchStatus.idle, .fetching, .paused] {
                        for isPlaceholder in [false, true] {
                            snapshots.append(
                                QuerySnapshot(
                                    key: "k", data: data, error: error, status: status, fetchStatus: fetchStatus,
                                    dataUpdatedAt: nil, isStale: false, isPlaceholderData: isPlaceholder,
                                    failureCount: error == nil ? 0 : 1))
                        }
                    }
                }
            }
        }
        return snapshots
    }()

    private static func stateCase(_ state: QueryState<Int>) -> ViewSignature.StateCase {
        switch state {
        case .idle: .idle
        case .loading: .loading
        case .failed: .failed
        case .succeed: .succeed
        }
    }

    @Test("the signature's state case is the snapshot state's case, for all 72 combinations")
    func stateCasesAgree() {
        #expect(Self.snapshots.count == 72)
        for snapshot in Self.snapshots {
            #expect(
                snapshot.signature(dataVersion: 1).stateCase == Self.stateCase(snapshot.state),
                "data \(String(describing: snapshot.data)), status \(snapshot.status), fetch \(snapshot.fetchStatus)")
        }
    }

    @Test("two snapshots differ for an observer exactly when their signatures, states or keys do")
    func differFollowsTheSignature() {
        let pairs = Self.snapshots.prefix(24).flatMap { old in Self.snapshots.prefix(24).map { (old, $0) } }
        for (old, next) in pairs {
            let expected =
                old.signature(dataVersion: 0) != next.signature(dataVersion: 0) || !old.state.isSame(as: next.state)
            #expect(ViewChannel<Int>.differ(old, next) == expected)
        }
        let moved = QuerySnapshot<Int>(key: "other", showing: .idle)
        #expect(ViewChannel<Int>.differ(QuerySnapshot(key: "k", showing: .idle), moved), "a key alone differs")
        #expect(!ViewChannel<Int>.differ(moved, moved))
    }

    @Test("a frame's data moves with its version; without one, the values decide")
    func frames() {
        let versioned = ViewFrame(QuerySnapshot<Int>(key: "k", showing: .succeed(1)), dataVersion: 7)
        #expect(!versioned.valuesDecide && versioned.signature.dataVersion == 7 && versioned.value != nil)
        let unversioned = ViewFrame(QuerySnapshot<Int>(key: "k", showing: .loading), dataVersion: nil)
        #expect(unversioned.valuesDecide && unversioned.value == nil)
        #expect(unversioned.signature.stateCase == .loading)
    }
}
