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

/// The project's one lock: a value of `State` that is only ever touched with the lock held.
///
/// It is a pthread mutex on Linux (error-checking in debug builds, so a re-entrant `withLock` crashes a test
/// instead of deadlocking it) and an `os_unfair_lock` on Apple platforms. `Synchronization.Mutex` is not used
/// because the thread sanitizer cannot see its contended path on Linux and would report false races.
///
/// > Important: never call out (a subscriber, a user closure, a continuation, a scheduler) inside `body`:
/// > compute what to do under the lock, release it, then act.
@usableFromInline
package final class Locked<State> {
    @usableFromInline var state: State
    @usableFromInline let lock: UnsafeMutablePointer<LockPrimitive>

    /// Makes a lock that guards `initialState`.
    @inlinable
    package init(_ initialState: State) {
        state = initialState
        lock = UnsafeMutablePointer.allocate(capacity: 1)
        LockOperations.initialize(lock)
    }

    @inlinable
    deinit {
        LockOperations.destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        LockOperations.lock(lock)
        defer { LockOperations.unlock(lock) }
        return try body(&state)
    }
}

// Safety: `state` is read and written only inside `withLock`, which holds the mutex `lock` for the whole access;
// the mutex is allocated once and never moves. Sendable only when the state is, so a value that must not cross
// threads cannot be smuggled out of `withLock`.
extension Locked: @unchecked Sendable where State: Sendable {}

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

    @usableFromInline
    static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            #if DEBUG
                os_unfair_lock_assert_not_owner(lock)
            #endif
            os_unfair_lock_lock(lock)
        #else
            let status = pthread_mutex_lock(lock)
            precondition(status == 0, "Locked: lock failed with \(status) (a re-entrant withLock?)")
        #endif
    }

    @usableFromInline
    static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            os_unfair_lock_unlock(lock)
        #else
            let status = pthread_mutex_unlock(lock)
            precondition(status == 0, "Locked: unlock failed with \(status)")
        #endif
    }
}
