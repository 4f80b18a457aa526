#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(Darwin)
    @usableFromInline
    package typealias LockPrimitive = os_unfair_lock
#else
    @usableFromInline
    package typealias LockPrimitive = pthread_mutex_t
#endif

/// The project's one lock: a value of `State` that is only ever touched with the lock held. Public so that
/// Loft's add-ons (and a provider a user writes) guard their state with the same lock.
///
/// ```swift
/// let hits = Locked(0)
/// hits.withLock { $0 += 1 }
/// ```
///
/// It is a pthread mutex on Linux (error-checking in debug builds, so a re-entrant `withLock` crashes a test
/// instead of deadlocking it) and an `os_unfair_lock` on Apple platforms. `Synchronization.Mutex` is not used
/// because the thread sanitizer cannot see its contended path on Linux and would report false races.
///
/// The state and the mutex share one allocation. `Locked` is a reference: copies share the same lock.
///
/// > Important: never call out (a subscriber, a user closure, a continuation, a scheduler) inside `body`:
/// > compute what to do under the lock, release it, then act.
public struct Locked<State> {
    @usableFromInline let storage: LockedStorage<State>

    /// Makes a lock that guards `initialState`.
    @inlinable
    public init(_ initialState: State) {
        storage = LockedStorage.make(initialState)
    }

    /// Runs `body` with exclusive access to the state, and returns its result. Calling `withLock` again from
    /// `body` is a programming error: a debug build stops there, instead of deadlocking.
    @inlinable
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { state, lock in
            LockOperations.lock(lock)
            #if DEBUG
                HeldLocks.change(by: 1)
                defer { HeldLocks.change(by: -1) }
            #endif
            defer { LockOperations.unlock(lock) }
            return try body(&state.pointee)
        }
    }
}

/// How many `Locked` locks the current thread holds, counted in debug builds only: a publication (a subject's
/// `send`, a client's event) made while one is held stops the test that made it, instead of deadlocking or
/// crashing later when a subscriber re-enters the code that holds the lock.
@usableFromInline
package enum HeldLocks {
    #if DEBUG
        /// The thread-local slot of the count.
        @usableFromInline
        static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            return key
        }()

        @usableFromInline
        static func change(by delta: Int) {
            let count = Int(bitPattern: pthread_getspecific(key)) + delta
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: count))
        }
    #endif

    /// Stops a debug build when the current thread holds a lock; does nothing in a release build.
    @inlinable
    package static func assertNoneHeld(_ site: StaticString) {
        #if DEBUG
            let count = Int(bitPattern: pthread_getspecific(key))
            precondition(count == 0, "\(site) while holding \(count) lock(s): publish after the lock is released")
        #endif
    }
}

// Safety: the state is read and written only inside `withLock`, which holds the mutex for the whole access;
// the mutex lives in the same heap object as the state and never moves. Sendable only when the state is, so
// a value that must not cross threads cannot be smuggled out of `withLock`. (`ManagedBuffer` is explicitly not
// Sendable, hence the unchecked conformance on this wrapper.)
extension Locked: @unchecked Sendable where State: Sendable {}

/// The state (the header) and the mutex (the one element) in a single heap object.
@usableFromInline
final class LockedStorage<State>: ManagedBuffer<State, LockPrimitive> {
    @inlinable
    static func make(_ initialState: State) -> LockedStorage<State> {
        let buffer = create(minimumCapacity: 1) { _ in initialState }
        let storage = unsafeDowncast(buffer, to: LockedStorage<State>.self)
        storage.withUnsafeMutablePointerToElements { LockOperations.initialize($0) }
        return storage
    }

    // The header (the state) is destroyed by `ManagedBuffer` itself; the element (the mutex) is ours.
    @inlinable
    deinit {
        withUnsafeMutablePointerToElements { LockOperations.destroy($0) }
    }
}

@usableFromInline
enum LockOperations {
    @usableFromInline
    static func initialize(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
        #else
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            #if DEBUG
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
            #endif
            let status = pthread_mutex_init(lock, &attributes)
            pthread_mutexattr_destroy(&attributes)
            precondition(status == 0, "Locked: pthread_mutex_init failed with \(status)")
        #endif
    }

    @usableFromInline
    static func destroy(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
        #endif
    }

    /// Inlined at each `withLock`, so that taking the lock costs the C library's call alone; a failure (only a
    /// re-entrant `withLock` in a debug build) stops in `fail`, kept out of line.
    @inlinable @inline(__always)
    static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            #if DEBUG
                os_unfair_lock_assert_not_owner(lock)
            #endif
            os_unfair_lock_lock(lock)
        #else
            let status = pthread_mutex_lock(lock)
            if status != 0 { fail(locking: true, status) }
        #endif
    }

    @inlinable @inline(__always)
    static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            os_unfair_lock_unlock(lock)
        #else
            let status = pthread_mutex_unlock(lock)
            if status != 0 { fail(locking: false, status) }
        #endif
    }

    /// Stops the program: locking or unlocking the mutex failed with `status`, which only a programming error
    /// causes (a re-entrant `withLock`, which the debug build's error-checking mutex reports).
    @usableFromInline @inline(never)
    static func fail(locking: Bool, _ status: Int32) -> Never {
        if locking { preconditionFailure("Locked: lock failed with \(status) (a re-entrant withLock?)") }
        preconditionFailure("Locked: unlock failed with \(status)")
    }
}
