/// A call's listing as it was submitted, shared by reference by the mutation cache's record and the call's run:
/// neither copies it (a listing holds the request, the keys and the meta data).
package final class SubmittedCall: Sendable {
    package let info: MutationInfo

    init(_ info: MutationInfo) {
        self.info = info
    }
}
