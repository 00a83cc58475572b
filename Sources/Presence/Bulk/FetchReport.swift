import Foundation

/// The outcome of a bulk fetch: one line per entry and the totals. Written as JSON beside the thumbnails.
///
/// A value type; safe to use from any thread.
public struct FetchReport: Sendable, Codable {
    /// How one entry ended.
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        /// Downloaded and written.
        case ok
        /// Served from a cache without a request (or offline, or stale after a network failure).
        case cached
        /// The cached copy was confirmed by a 304 and written.
        case revalidated
        /// Not written; `reason` says why.
        case failed
    }

    /// One entry's outcome.
    public struct Entry: Sendable, Codable, Hashable {
        public var index: Int
        public var id: String?
        public var screenName: String?
        public var url: String?
        public var outcome: Outcome
        public var reason: String?
        /// Body bytes received from the network.
        public var bytesReceived: Int
        /// Bytes of the written thumbnail.
        public var outputBytes: Int
        public var sourceFormat: String?
        public var sourceWidth: Int?
        public var sourceHeight: Int?
        /// The thumbnail's file name inside the output folder.
        public var file: String?
        /// Whether a stale cached copy was used because the network failed.
        public var stale: Bool
        /// Time from request to written file.
        public var milliseconds: Int
    }

    /// Totals by outcome.
    public struct Totals: Sendable, Codable, Hashable {
        public var total = 0
        public var ok = 0
        public var cached = 0
        public var revalidated = 0
        public var failed = 0
    }

    public var entries: [Entry]
    public var totals: Totals
    public var startedAt: Date
    public var durationSeconds: Double
    public var bytesReceived: Int
    /// Downloads allowed at once (nil: unlimited).
    public var concurrency: Int?
    /// The thumbnail specification, e.g. `96-square-center-png`.
    public var spec: String
    /// Whether the run was interrupted; unfinished entries are failed with reason "cancelled".
    public var wasCancelled: Bool

    /// Entries per second over the whole run.
    public var imagesPerSecond: Double { durationSeconds > 0 ? Double(entries.count) / durationSeconds : 0 }

    init(entries: [Entry], startedAt: Date, duration: Double, concurrency: Int?, spec: String, wasCancelled: Bool) {
        self.entries = entries
        var totals = Totals()
        totals.total = entries.count
        for entry in entries {
            switch entry.outcome {
            case .ok: totals.ok += 1
            case .cached: totals.cached += 1
            case .revalidated: totals.revalidated += 1
            case .failed: totals.failed += 1
            }
        }
        self.totals = totals
        self.startedAt = startedAt
        self.durationSeconds = duration
        self.bytesReceived = entries.reduce(0) { $0 + $1.bytesReceived }
        self.concurrency = concurrency
        self.spec = spec
        self.wasCancelled = wasCancelled
    }

    /// The report as pretty-printed JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// Writes the report atomically to `url`.
    public func write(to url: URL) throws {
        try AtomicFile.write(jsonData(), to: url)
    }
}
