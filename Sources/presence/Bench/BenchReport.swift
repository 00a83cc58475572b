import Foundation

/// One line of the benchmark's results.
struct BenchRow: Codable, Sendable {
    var suite: String
    var scenario: String
    var strategy: String
    var width: Int
    var entries: Int
    var succeeded: Int
    var wallSeconds: Double
    var imagesPerSecond: Double
    var latencyP50Milliseconds: Double?
    var latencyP99Milliseconds: Double?
    var cpuSeconds: Double?
    var peakResidentBytes: Int?
    var peakThreads: Int?
    /// Wall time ÷ the network floor (entries × latency ÷ width); 1.0 is perfect.
    var floorRatio: Double?
    /// Throughput ÷ the best peer's in the same scenario and width (above 1: faster than the peer).
    var peerRatio: Double?
    var isPeer: Bool
    /// Digest of every thumbnail the strategy produced, in list order (nil for download-only peers).
    var outputDigest: String?
    /// Whether ``outputDigest`` equals every other strategy's in the scenario.
    var sameOutput: Bool?
    var note: String?

    init(suite: String, measurement m: BenchMeasurement, isPeer: Bool, floor: Double?) {
        self.suite = suite
        scenario = m.scenario
        strategy = m.strategy
        width = m.concurrency
        entries = m.entries
        succeeded = m.succeeded
        wallSeconds = m.wallSeconds
        imagesPerSecond = m.imagesPerSecond
        latencyP50Milliseconds = m.latencyP50Milliseconds > 0 ? m.latencyP50Milliseconds : nil
        latencyP99Milliseconds = m.latencyP99Milliseconds > 0 ? m.latencyP99Milliseconds : nil
        cpuSeconds = m.cpuSeconds
        peakResidentBytes = m.peakResidentBytes
        peakThreads = m.peakThreads
        floorRatio = floor.map { $0 > 0 ? m.wallSeconds / $0 : nil } ?? nil
        self.isPeer = isPeer
        outputDigest = m.outputDigest.isEmpty ? nil : m.outputDigest
        note = m.note
    }
}

/// The results of a benchmark run: printed as a table, saved as CSV and JSON.
struct BenchReport: Codable, Sendable {
    var generatedAt = Date()
    var cores = ProcessInfo.processInfo.activeProcessorCount
    var rows: [BenchRow] = []

    /// Fills `peerRatio` for non-peer rows from the best peer doing the same work in the same
    /// suite, scenario and width (any width for the one-thread thumbnail peers). Download-only
    /// peers (curl) are shown beside, not used as a ratio: they skip the decoding.
    mutating func relateToPeers() {
        for index in rows.indices where !rows[index].isPeer {
            let row = rows[index]
            let peers = rows.filter {
                $0.isPeer && $0.note != "download only" && $0.suite == row.suite && $0.scenario == row.scenario
                    && ($0.width == row.width || row.suite == "thumbnails")
            }
            if let best = peers.map(\.imagesPerSecond).max(), best > 0 {
                rows[index].peerRatio = row.imagesPerSecond / best
            }
        }
    }

    func table(for suite: String) -> String {
        let selected = rows.filter { $0.suite == suite }
        func number(_ value: Double?, _ format: String) -> String { value.map { String(format: format, $0) } ?? "-" }
        return Format.table(
            ["scenario", "strategy", "N", "time", "img/s", "p50 ms", "p99 ms", "CPU s", "peak RSS", "threads", "×floor", "×peer", "same"],
            selected.map { row in
                [row.scenario, row.strategy, "\(row.width)", Format.duration(row.wallSeconds), Format.rate(row.imagesPerSecond),
                 number(row.latencyP50Milliseconds, "%.0f"), number(row.latencyP99Milliseconds, "%.0f"), number(row.cpuSeconds, "%.2f"),
                 row.peakResidentBytes.map { Format.bytes($0) } ?? "-", row.peakThreads.map(String.init) ?? "-",
                 number(row.floorRatio, "%.2f"), number(row.peerRatio, "%.2f"),
                 row.sameOutput.map { $0 ? "yes" : "NO" } ?? "-"]
            }
        )
    }

    func csv() -> String {
        let header = "suite,scenario,strategy,width,entries,succeeded,wall_seconds,images_per_second,p50_ms,p99_ms,cpu_seconds,peak_rss_bytes,peak_threads,floor_ratio,peer_ratio,is_peer,same_output,note"
        func field(_ value: Any?) -> String {
            switch value {
            case nil: return ""
            case let double as Double: return String(format: "%.4f", double)
            case let text as String: return text.contains(",") || text.contains("\"") ? "\"\(text.replacingOccurrences(of: "\"", with: "\"\""))\"" : text
            default: return "\(value!)"
            }
        }
        let lines = rows.map { r in
            [field(r.suite), field(r.scenario), field(r.strategy), field(r.width), field(r.entries), field(r.succeeded),
             field(r.wallSeconds), field(r.imagesPerSecond), field(r.latencyP50Milliseconds), field(r.latencyP99Milliseconds),
             field(r.cpuSeconds), field(r.peakResidentBytes), field(r.peakThreads), field(r.floorRatio), field(r.peerRatio),
             field(r.isPeer), field(r.sameOutput), field(r.note)].joined(separator: ",")
        }
        return ([header] + lines).joined(separator: "\n") + "\n"
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }
}
