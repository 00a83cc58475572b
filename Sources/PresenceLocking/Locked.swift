#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the lock lives next to the state it guards.
///
/// Thread-safe: ``withLock(_:)`` may be called from any thread. Presence uses this instead of
/// `Synchronization.Locked` because ThreadSanitizer understands pthread mutexes but not the raw
/// futexes lock uses on Linux, and every module must run cleanly under `--sanitize=thread`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Do not call back into the same lock from `body`.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body(&valueStorage)
    }

    @usableFromInline
    var valueStorage: Value {
        get { value }
        _modify { yield &value }
    }

    @usableFromInline
    func lock() { pthread_mutex_lock(mutex) }

    @usableFromInline
    func unlock() { pthread_mutex_unlock(mutex) }
}
