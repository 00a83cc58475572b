import PresenceLocking

/// Content the server answers from code rather than a registered body, such as the generated
/// follower list and avatars of ``FollowerWorld``.
public protocol FixtureContent: Sendable {
    /// The resource at `path`, or nil when this content has nothing there.
    func resource(at path: String) -> StaticResource?
}

/// Registered bodies, mounted content and per-key failure counters.
///
/// Thread-safe: `state`'s lock guards all of it.
final class FixtureRegistry: Sendable {
    private struct State {
        var resources: [String: StaticResource] = [:]
        var mounted: [any FixtureContent] = []
        var failuresServed: [String: Int] = [:]
        var gates: [String: Gate] = [:]
    }

    private struct Gate {
        var isOpen = false
        var waiting: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    func register(_ resource: StaticResource, at path: String) {
        state.withLock { $0.resources[path] = resource }
    }

    func mount(_ content: any FixtureContent) {
        state.withLock { $0.mounted.append(content) }
    }

    func resource(at path: String) -> StaticResource? {
        state.withLock { $0.resources[path] }
    }

    func generatedResource(at path: String) -> StaticResource? {
        let mounted = state.withLock { $0.mounted }
        for content in mounted {
            if let resource = content.resource(at: path) { return resource }
        }
        return nil
    }

    /// Runs `action` now when gate `name` is open, else when it opens.
    func pass(gate name: String, _ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s in
            if s.gates[name, default: Gate()].isOpen { return true }
            s.gates[name, default: Gate()].waiting.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Opens gate `name`, releasing every response held at it.
    func open(gate name: String) {
        let released = state.withLock { s in
            s.gates[name, default: Gate()].isOpen = true
            defer { s.gates[name]?.waiting = [] }
            return s.gates[name]?.waiting ?? []
        }
        released.forEach { $0() }
    }

    /// How many responses wait at gate `name`.
    func waiting(at name: String) -> Int {
        state.withLock { $0.gates[name]?.waiting.count ?? 0 }
    }

    /// True (and counts one) while fewer than `limit` failures were served for `key`.
    func consumeFailure(key: String, limit: Int) -> Bool {
        state.withLock { s in
            let served = s.failuresServed[key, default: 0]
            guard served < limit else { return false }
            s.failuresServed[key] = served + 1
            return true
        }
    }
}
