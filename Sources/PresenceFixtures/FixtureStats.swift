import PresenceLocking

/// Counters a test reads to prove what reached the server.
///
/// A value type; a snapshot taken by ``FixtureServer/stats``.
public struct FixtureStatsSnapshot: Sendable, Hashable {
    /// Requests whose head arrived.
    public var requestsServed = 0
    /// Requests being answered right now.
    public var inFlight = 0
    /// The most requests answered at the same moment since the last reset.
    public var maxInFlight = 0
    /// TCP connections accepted.
    public var connectionsAccepted = 0
    /// Responses cut short because the client went away (cancellation, timeouts, limits).
    public var responsesAbandonedByClient = 0
    /// Requests by path (without the query).
    public var requestsByPath: [String: Int] = [:]
    /// Requests answered with 304 Not Modified.
    public var notModifiedResponses = 0
    /// Requests answered with 206 Partial Content.
    public var partialResponses = 0
}

/// The server's live counters.
///
/// Thread-safe: every member may be used from any thread; `counters`'s lock guards them.
final class FixtureStats: Sendable {
    private let counters = Locked(FixtureStatsSnapshot())

    var snapshot: FixtureStatsSnapshot { counters.withLock { $0 } }

    func reset() {
        counters.withLock { c in
            let inFlight = c.inFlight
            c = FixtureStatsSnapshot()
            c.inFlight = inFlight
            c.maxInFlight = inFlight
        }
    }

    func connectionAccepted() {
        counters.withLock { $0.connectionsAccepted += 1 }
    }

    func requestStarted(path: String) {
        counters.withLock { c in
            c.requestsServed += 1
            c.inFlight += 1
            c.maxInFlight = max(c.maxInFlight, c.inFlight)
            c.requestsByPath[path, default: 0] += 1
        }
    }

    func requestEnded(abandoned: Bool, status: Int) {
        counters.withLock { c in
            c.inFlight -= 1
            if abandoned { c.responsesAbandonedByClient += 1 }
            if status == 304 { c.notModifiedResponses += 1 }
            if status == 206 { c.partialResponses += 1 }
        }
    }
}
