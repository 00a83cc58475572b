import PresenceLocking

/// A strict least-recently-used cache with a total cost limit and a per-entry cap.
///
/// Thread-safe: every method may be called from any thread; `state`'s lock guards the table and
/// the recency list. Lookups and insertions are O(1).
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var newer: Key?
        var older: Key?
    }

    private struct State {
        var nodes: [Key: Node] = [:]
        var newest: Key?
        var oldest: Key?
        var totalCost = 0

        mutating func unlink(_ key: Key) {
            guard let node = nodes[key] else { return }
            if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
            if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
            nodes[key]?.newer = nil
            nodes[key]?.older = nil
        }

        mutating func pushNewest(_ key: Key) {
            nodes[key]?.older = newest
            nodes[key]?.newer = nil
            if let newest { nodes[newest]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
        }

        mutating func remove(_ key: Key) {
            guard let node = nodes[key] else { return }
            unlink(key)
            totalCost -= node.cost
            nodes[key] = nil
        }
    }

    /// The most total cost kept; the least recently used entries go first.
    public let costLimit: Int
    /// Entries costing more than this are not kept at all.
    public let entryCostLimit: Int
    private let state = Locked(State())

    /// Creates a cache.
    public init(costLimit: Int, entryCostLimit: Int) {
        self.costLimit = costLimit
        self.entryCostLimit = entryCostLimit
    }

    /// The value for `key`, which becomes the most recently used.
    public func value(for key: Key) -> Value? {
        state.withLock { s in
            guard let node = s.nodes[key] else { return nil }
            s.unlink(key)
            s.pushNewest(key)
            return node.value
        }
    }

    /// Stores `value` with `cost`, evicting least recently used entries to stay within the limit.
    public func insert(_ value: Value, for key: Key, cost: Int) {
        guard cost <= entryCostLimit, cost <= costLimit else {
            removeValue(for: key)
            return
        }
        state.withLock { s in
            s.remove(key)
            s.nodes[key] = Node(key: key, value: value, cost: cost)
            s.pushNewest(key)
            s.totalCost += cost
            while s.totalCost > costLimit, let oldest = s.oldest { s.remove(oldest) }
        }
    }

    /// Removes the entry for `key`.
    public func removeValue(for key: Key) {
        state.withLock { $0.remove(key) }
    }

    /// Removes everything.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The total cost of what is kept.
    public var totalCost: Int { state.withLock { $0.totalCost } }

    /// How many entries are kept.
    public var count: Int { state.withLock { $0.nodes.count } }

    /// Keys from most to least recently used (for tests and diagnostics).
    public var keysByRecency: [Key] {
        state.withLock { s in
            var keys: [Key] = []
            var cursor = s.newest
            while let key = cursor {
                keys.append(key)
                cursor = s.nodes[key]?.older
            }
            return keys
        }
    }
}
