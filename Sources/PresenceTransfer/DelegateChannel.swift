import Foundation
import PresenceLocking

/// Runs one task's delegate callbacks on the delegate queue, one at a time and in the order they
/// were sent, even when that queue is concurrent.
///
/// Thread-safe: ``send(_:)`` may be called from any thread; the pending blocks are guarded by
/// `pending`'s lock.
final class DelegateChannel: Sendable {
    private struct Pending {
        var blocks: [@Sendable () -> Void] = []
        var isDraining = false
    }

    private let queue: OperationQueue
    private let pending = Locked(Pending())

    init(queue: OperationQueue) {
        self.queue = queue
    }

    /// Schedules `block` after every block sent before it.
    func send(_ block: @escaping @Sendable () -> Void) {
        let mustSchedule = pending.withLock { p in
            p.blocks.append(block)
            if p.isDraining { return false }
            p.isDraining = true
            return true
        }
        if mustSchedule { queue.addOperation { self.drain() } }
    }

    private func drain() {
        while true {
            let batch = pending.withLock { p -> [@Sendable () -> Void] in
                if p.blocks.isEmpty {
                    p.isDraining = false
                    return []
                }
                defer { p.blocks.removeAll(keepingCapacity: true) }
                return p.blocks
            }
            if batch.isEmpty { return }
            for block in batch { block() }
        }
    }
}
