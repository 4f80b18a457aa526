import Observation

/// What a UI reads of an observable Loft type: the latest snapshot box of the view it follows, for a lock and a
/// field read, and the observation registrar that tells SwiftUI (or `withObservationTracking`) of changes.
///
/// Non-generic on purpose: the key path handed to the registrar is made once for the type (a generic class
/// builds its key paths at run time, on every read), and a read looks up no generic metadata.
///
/// **Behavior**
/// - A read returns the box its source (a view of a cache entry) made last; the box is fetched from the source
///   only when the source's version moved since the last read, so most reads take one lock.
/// - The first read that tracking may watch calls `onFirstRead` once: until then nobody can be waiting for a
///   change, and the owner does not pay for notifications.
@usableFromInline
final class ObservedValue: Observable, Sendable {
    @usableFromInline
    struct State: Sendable {
        /// Where the box comes from: at first, a source of its own that holds the initial box.
        @usableFromInline var source: ViewCore
        @usableFromInline var box: ErasedObject
        /// The source's version of `box`; 0 when `box` did not come from the current source.
        @usableFromInline var version: UInt64
        @usableFromInline var isRead = false
        var onFirstRead: (@Sendable () -> Void)?

        init(source: ViewCore, box: ErasedObject, version: UInt64) {
            self.source = source
            self.box = box
            self.version = version
        }
    }

    /// Made once: a key path literal costs a runtime call on every use, and a static one a check that it is
    /// made.
    @usableFromInline let boxPath: any KeyPath<ObservedValue, ErasedObject> & Sendable = \ObservedValue.box

    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline let state: Locked<State>

    init(_ box: ErasedObject) {
        let source = ViewCore(box)
        state = Locked(State(source: source, box: box, version: source.version))
    }

    /// The latest box; tells observation tracking that it was read.
    @usableFromInline
    var box: ErasedObject {
        registrar.access(self, keyPath: boxPath)
        return read(markingRead: true)
    }

    /// `body` applied to the latest box, inside the lock when the box is current (so the box is neither retained
    /// nor released); tells observation tracking that it was read. `body` must not call out.
    @inlinable
    func read<Result>(_ body: (ErasedObject) -> Result) -> Result {
        registrar.access(self, keyPath: boxPath)
        let fast = state.withLock { state -> Result? in
            guard state.isRead, state.version == state.source.version else { return nil }
            return body(state.box)
        }
        return fast ?? body(read(markingRead: true))
    }

    /// The latest box, without telling observation tracking (for the owner's own decisions).
    var currentBox: ErasedObject {
        read(markingRead: false)
    }

    /// Whether anything read the box through `box` yet.
    var isRead: Bool {
        state.withLock { $0.isRead }
    }

    /// Called once, on the first tracked read (at once if that read already happened).
    func onFirstRead(_ action: @escaping @Sendable () -> Void) {
        let isRead = state.withLock { state -> Bool in
            if !state.isRead { state.onFirstRead = action }
            return state.isRead
        }
        if isRead { action() }
    }

    /// Follows another source; the next read takes its latest box.
    func setSource(_ source: ViewCore) {
        state.withLock { state in
            state.source = source
            state.version = 0
        }
    }

    /// Tells observation tracking that the box changed.
    func notifyChange() {
        registrar.notifyChange(of: self, at: boxPath)
    }

    @usableFromInline
    func read(markingRead: Bool) -> ErasedObject {
        let fast = state.withLock { state -> ErasedObject? in
            guard state.isRead || !markingRead, state.version == state.source.version else { return nil }
            return state.box
        }
        return fast ?? slowRead(markingRead: markingRead)
    }

    /// The first tracked read, or a read after the source moved: refreshes the box from the source.
    private func slowRead(markingRead: Bool) -> ErasedObject {
        let (source, firstRead) = state.withLock { state -> (ViewCore, (@Sendable () -> Void)?) in
            guard markingRead, !state.isRead else { return (state.source, nil) }
            state.isRead = true
            defer { state.onFirstRead = nil }
            return (state.source, state.onFirstRead)
        }
        firstRead?()
        let (box, version) = source.read()
        return state.withLock { state in
            if state.source === source, version > state.version {
                state.box = box
                state.version = version
            }
            return state.box
        }
    }
}
