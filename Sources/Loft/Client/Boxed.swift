/// An immutable value kept out of line: what a rarely used field of a per-entry state costs when empty is
/// one pointer instead of the value's whole size.
package final class Boxed<Value: Sendable>: Sendable {
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}
