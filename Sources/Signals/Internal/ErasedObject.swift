/// An object kept without its type, in storage that must not be generic (so that code holding a lock, or
/// passing the object along, looks no type up), and read back as the type it was stored as. It owns the
/// project's one unchecked downcast: debug builds check every read against the object's real type.
///
/// **Behavior**
/// - `unwrap(as:)` returns the object as `T`: in debug builds a `T` that is not the object's type stops the
///   program with both types named; in release builds the cast is unchecked, as `unsafeDowncast` is.
/// - Two erased objects are `===` when they hold the same object.
@usableFromInline
package struct ErasedObject: Sendable {
    @usableFromInline package let object: AnyObject & Sendable

    /// Keeps `object` without its type.
    @inlinable @inline(__always)
    package init(_ object: some AnyObject & Sendable) {
        self.object = object
    }

    /// The object, as the type it was stored as.
    @inlinable @inline(__always)
    package func unwrap<T: AnyObject & Sendable>(as type: T.Type) -> T {
        Self.cast(object, to: type)
    }

    /// `object` as `T`, which must be its type (checked in debug builds): for an object held as an existential
    /// of a protocol of its own (a subject's subscriber box).
    @inlinable @inline(__always)
    package static func cast<T: AnyObject>(_ object: AnyObject, to type: T.Type) -> T {
        assert(object is T, "an object of type \(Swift.type(of: object)) was read as a \(T.self)")
        return unsafeDowncast(object, to: type)
    }

    /// Whether both hold the same object.
    @inlinable
    package static func === (lhs: ErasedObject, rhs: ErasedObject) -> Bool {
        lhs.object === rhs.object
    }

    /// Whether they hold different objects.
    @inlinable
    package static func !== (lhs: ErasedObject, rhs: ErasedObject) -> Bool {
        lhs.object !== rhs.object
    }
}
