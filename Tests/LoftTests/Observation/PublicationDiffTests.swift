import Signals
import Testing

@testable import Loft

/// The decision every view makes for a publication, as values: the state part (`ViewSends.stateChanged`) and
/// the value part (`ShownValue`).
@Suite struct PublicationDiffTests {
    @Test(
        "the state changed when its case did, or within a case whose values may differ when the states differ",
        arguments: [
            (true, false, true, true),
            (true, true, true, true),
            (false, false, false, false),
            (false, true, true, false),
            (false, true, false, true),
        ])
    func stateChanged(caseChanged: Bool, mayDiffer: Bool, same: Bool, expected: Bool) {
        var asked = false
        let changed = ViewSends.stateChanged(caseChanged: caseChanged, mayDiffer: mayDiffer) {
            asked = true
            return same
        }
        #expect(changed == expected)
        // The states are compared only when the case did not decide and their values may differ.
        #expect(asked == (!caseChanged && mayDiffer))
    }

    private static func sends() -> ViewSends {
        ViewSends(box: ErasedObject(ValueBox(0)), stateChanged: false)
    }

    @Test("a value: new when none was shown or it differs; the shown box again when it is equal; gone once")
    func valuePart() {
        var shown = ShownValue()
        var sends = Self.sends()
        #expect(shown.publish(Optional(1), mayDiffer: false, into: &sends))
        #expect(sends.valueChanged && sends.value != nil)
        let first = sends.value

        sends = Self.sends()
        #expect(!shown.publish(Optional(1), mayDiffer: true, into: &sends), "an equal value is not new")
        #expect(!sends.valueChanged && sends.value?.object === first?.object)

        sends = Self.sends()
        #expect(!shown.publish(Optional(2), mayDiffer: false, into: &sends), "data that did not move is not read")
        #expect(sends.value?.object === first?.object)

        sends = Self.sends()
        #expect(shown.publish(Optional(2), mayDiffer: true, into: &sends))
        #expect(sends.valueChanged && sends.value?.object !== first?.object)

        sends = Self.sends()
        #expect(shown.publish(Int?.none, mayDiffer: true, into: &sends), "the value went")
        #expect(sends.valueChanged && sends.value == nil)

        sends = Self.sends()
        #expect(!shown.publish(Int?.none, mayDiffer: true, into: &sends), "it goes once")
        #expect(!sends.valueChanged)
    }

    @Test("a boxed value (a mutation's): new when none was shown or the state says so, else sent unchanged")
    func boxedValuePart() {
        let box = ErasedObject(ValueBox(5))
        var shown = ShownValue()
        var sends = Self.sends()
        #expect(shown.publish(boxed: box, isNew: false, into: &sends), "none was shown")
        #expect(sends.valueChanged)

        sends = Self.sends()
        #expect(!shown.publish(boxed: box, isNew: false, into: &sends))
        #expect(!sends.valueChanged && sends.value?.object === box.object)

        sends = Self.sends()
        #expect(shown.publish(boxed: ErasedObject(ValueBox(6)), isNew: true, into: &sends))
        #expect(sends.valueChanged)
    }
}
