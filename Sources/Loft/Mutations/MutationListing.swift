/// A call's listing by reference. The one made at submission is shared by the mutation cache's record and the
/// call's run, and neither copies it (a listing holds the request, the keys and the meta data); a listing made
/// later travels in one too. An optional listing is then one optional reference: an optional `MutationInfo` is
/// copied and destroyed by the optional's generic code.
package final class MutationListing: Sendable {
    package let info: MutationInfo

    init(_ info: MutationInfo) {
        self.info = info
    }
}
