/// A call's response as the fetcher returned it, in a `ValueBox<Response>` made where the mutation was made (the
/// mutation's public initialisers are inlinable, so this runs specialised for `Response`): the mutation's state
/// shows the box and `mutate` returns its value without casting an erased value back; the listing and the
/// callbacks read the value erased. One reference: passing the response along the call copies no value.
@usableFromInline
package struct MutationResponse: Sendable {
    /// A `ValueBox` of the mutation's `Response`.
    @usableFromInline package let box: any ErasedValueBox

    @inlinable
    package init<Response: Sendable>(_ response: Response) {
        box = ValueBox(response)
    }

    /// The response, erased.
    package var value: any Sendable { box.erasedValue }
}

/// A value box whose value can be read without its type.
@usableFromInline
package protocol ErasedValueBox: AnyObject, Sendable {
    /// The value, erased.
    var erasedValue: any Sendable { get }
}

extension ValueBox: ErasedValueBox {
    @usableFromInline
    package var erasedValue: any Sendable { value }
}
