import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
#if canImport(CFutex)
    internal import CFutex
#endif

#if canImport(Darwin)
    @usableFromInline
    package typealias LockPrimitive = os_unfair_lock
#else
    /// The lock on Linux: one 32-bit word (a `pthread_mutex_t` is 40 bytes, and every cache entry has a lock:
    /// row (i)). 0 is free, 1 held, 2 held with threads (perhaps) asleep on it. Taking it is one
    /// compare-and-exchange when free; a thread that finds it held marks it 2 and sleeps in the kernel (a futex)
    /// until a release wakes one sleeper. Both sides are atomics with acquire and release orderings in Swift, so
    /// the thread sanitizer sees every hand-over, the contended ones included.
    ///
    /// A debug build also keeps the holder's thread, so that a re-entrant `withLock` stops instead of deadlocking.
    @usableFromInline
    package struct LockPrimitive: ~Copyable {
        /// First, so that the lock's address is the word's (the futex's address).
        @usableFromInline let word = Atomic<UInt32>(0)
        #if DEBUG
            /// The thread holding the lock (its `pthread_self()`), 0 when none.
            @usableFromInline let holder = Atomic<UInt>(0)
        #endif

        @usableFromInline init() {}
    }
#endif

/// The project's one lock: a value of `State` that is only ever touched with the lock held. Public so that
/// Loft's add-ons (and a provider a user writes) guard their state with the same lock.
///
/// ```swift
/// let hits = Locked(0)
/// hits.withLock { $0 += 1 }
/// ```
///
/// It is a 4-byte futex lock on Linux (`LockPrimitive`: its debug builds check for a re-entrant `withLock`,
/// which crashes a test instead of deadlocking it) and an `os_unfair_lock` on Apple platforms.
/// `Synchronization.Mutex` is not used because the thread sanitizer cannot see its contended path on Linux (the
/// kernel hands the lock over) and would report false races.
///
/// The state and the lock share one allocation. `Locked` is a reference: copies share the same lock.
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

// Safety: the state is read and written only inside `withLock`, which holds the lock for the whole access;
// the lock lives in the same heap object as the state and never moves. Sendable only when the state is, so
// a value that must not cross threads cannot be smuggled out of `withLock`. (`ManagedBuffer` is explicitly not
// Sendable, hence the unchecked conformance on this wrapper.)
extension Locked: @unchecked Sendable where State: Sendable {}

/// The state (the header) and the lock (the one element) in a single heap object.
@usableFromInline
final class LockedStorage<State>: ManagedBuffer<State, LockPrimitive> {
    @inlinable
    static func make(_ initialState: State) -> LockedStorage<State> {
        let buffer = create(minimumCapacity: 1) { _ in initialState }
        let storage = unsafeDowncast(buffer, to: LockedStorage<State>.self)
        storage.withUnsafeMutablePointerToElements { LockOperations.initialize($0) }
        return storage
    }

    // The header (the state) is destroyed by `ManagedBuffer` itself; the element (the lock) is ours.
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
            lock.initialize(to: LockPrimitive())
        #endif
    }

    @usableFromInline
    static func destroy(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if !canImport(Darwin)
            lock.deinitialize(count: 1)
        #endif
    }

    /// Inlined at each `withLock`: when the lock is free, taking it is one compare-and-exchange; a held lock is
    /// waited for out of line (`waitAndLock`), and a re-entrant `withLock` (checked in debug builds) stops in
    /// `failReentrant`, out of line too.
    @inlinable @inline(__always)
    static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            #if DEBUG
                os_unfair_lock_assert_not_owner(lock)
            #endif
            os_unfair_lock_lock(lock)
        #else
            #if DEBUG
                let thread = currentThread()
                if lock.pointee.holder.load(ordering: .relaxed) == thread { failReentrant() }
            #endif
            if !lock.pointee.word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
                waitAndLock(lock)
            }
            #if DEBUG
                lock.pointee.holder.store(thread, ordering: .relaxed)
            #endif
        #endif
    }

    @inlinable @inline(__always)
    static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            os_unfair_lock_unlock(lock)
        #else
            #if DEBUG
                lock.pointee.holder.store(0, ordering: .relaxed)
            #endif
            // 2: a thread may be asleep on the lock (see `waitAndLock`).
            if lock.pointee.word.exchange(0, ordering: .releasing) == 2 { wakeOne(lock) }
        #endif
    }

    #if !canImport(Darwin)
        /// Takes a held lock once it is released: marks it as waited for (2) and sleeps until a release wakes
        /// this thread, then tries again. Whoever takes it this way leaves it marked 2, so that its release wakes
        /// the next sleeper (at worst one futex call too many, never a sleeper left behind).
        @usableFromInline @inline(never)
        static func waitAndLock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
            while lock.pointee.word.exchange(2, ordering: .acquiring) != 0 {
                loft_futex_wait(UnsafeMutableRawPointer(lock), 2)
            }
        }

        @usableFromInline @inline(never)
        static func wakeOne(_ lock: UnsafeMutablePointer<LockPrimitive>) {
            loft_futex_wake_one(UnsafeMutableRawPointer(lock))
        }

        #if DEBUG
            @usableFromInline
            static func currentThread() -> UInt {
                #if canImport(Glibc)
                    UInt(pthread_self())
                #else
                    UInt(bitPattern: pthread_self())
                #endif
            }
        #endif
    #endif

    /// Stops the program: a thread called `withLock` on a lock it holds, which would deadlock (debug builds).
    @usableFromInline @inline(never)
    static func failReentrant() -> Never {
        preconditionFailure("Locked: lock failed: this thread holds it already (a re-entrant withLock)")
    }
}
