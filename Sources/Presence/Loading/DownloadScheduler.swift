import Foundation
import PresenceLocking

/// The order in which waiting downloads start.
public enum DownloadOrder: String, Sendable, Hashable, Codable, CaseIterable {
    /// First requested, first started.
    case fifo
    /// Newest request first, as a scrolling timeline wants.
    case lifo
}

/// Feeds operations to an `OperationQueue` no faster than it runs them, so that the order of
/// waiting work (priority, then FIFO or LIFO) is ours to decide and can change while it waits.
/// The queue's `maxConcurrentOperationCount` still bounds how many run at once.
///
/// Thread-safe: `state`'s lock guards the waiting list and the count of operations handed over.
final class DownloadScheduler: Sendable {
    private struct Waiting {
        let operation: Operation
        var priority: ImageRequest.Priority
        let sequence: Int
    }

    private struct State {
        var waiting: [Waiting] = []
        var handedOver = 0
        var sequence = 0
    }

    let queue: OperationQueue
    private let order: DownloadOrder
    private let state = Locked(State())

    init(queue: OperationQueue, order: DownloadOrder) {
        self.queue = queue
        self.order = order
    }

    private var capacity: Int {
        let limit = queue.maxConcurrentOperationCount
        return limit == OperationQueue.defaultMaxConcurrentOperationCount || limit <= 0 ? Int.max : limit
    }

    /// Adds `operation`; it starts when the queue has room and nothing more urgent waits.
    func enqueue(_ operation: Operation, priority: ImageRequest.Priority) {
        state.withLock { s in
            s.sequence += 1
            s.waiting.append(Waiting(operation: operation, priority: priority, sequence: s.sequence))
        }
        pump()
    }

    /// Changes the priority of a waiting operation.
    func reprioritize(_ operation: Operation, to priority: ImageRequest.Priority) {
        state.withLock { s in
            if let index = s.waiting.firstIndex(where: { $0.operation === operation }) { s.waiting[index].priority = priority }
        }
    }

    /// Drops a waiting operation (it was cancelled before it started). Returns whether it was waiting.
    @discardableResult
    func remove(_ operation: Operation) -> Bool {
        state.withLock { s in
            guard let index = s.waiting.firstIndex(where: { $0.operation === operation }) else { return false }
            s.waiting.remove(at: index)
            return true
        }
    }

    private func pump() {
        let limit = capacity
        let ready: [Operation] = state.withLock { s in
            var batch: [Operation] = []
            while s.handedOver < limit, let index = nextIndex(in: s.waiting) {
                batch.append(s.waiting.remove(at: index).operation)
                s.handedOver += 1
            }
            return batch
        }
        for operation in ready {
            let previous = operation.completionBlock
            operation.completionBlock = { [self] in
                previous?()
                state.withLock { $0.handedOver -= 1 }
                pump()
            }
            queue.addOperation(operation)
        }
    }

    private func nextIndex(in waiting: [Waiting]) -> Int? {
        guard !waiting.isEmpty else { return nil }
        var best = 0
        for index in waiting.indices.dropFirst() {
            let candidate = waiting[index], current = waiting[best]
            if candidate.priority != current.priority {
                if candidate.priority > current.priority { best = index }
            } else if order == .fifo ? candidate.sequence < current.sequence : candidate.sequence > current.sequence {
                best = index
            }
        }
        return best
    }
}
