import Foundation
import Presence
import PresenceLocking

/// What one strategy run measured, as the worker process reports it to the parent.
struct BenchMeasurement: Codable, Sendable {
    var strategy: String
    var concurrency: Int
    var scenario: String
    var entries: Int
    var succeeded: Int
    var wallSeconds: Double
    var cpuSeconds: Double
    var peakResidentBytes: Int
    var peakThreads: Int
    var latencyP50Milliseconds: Double
    var latencyP99Milliseconds: Double
    /// Digest over every produced thumbnail, in list order: equal digests mean equal work.
    var outputDigest: String
    var note: String?

    var imagesPerSecond: Double { wallSeconds > 0 ? Double(succeeded) / wallSeconds : 0 }
}

/// Per-image latencies and thumbnail digests, collected from many threads.
///
/// Thread-safe: `state`'s lock guards both tables.
final class BenchRecorder: Sendable {
    private struct State {
        var latencies: [Double] = []
        var digests: [Int: String] = [:]
    }

    private let state = Locked(State())

    func record(index: Int, started: Date, thumbnail: Data?) {
        let milliseconds = Date().timeIntervalSince(started) * 1000
        state.withLock { s in
            s.latencies.append(milliseconds)
            if let thumbnail { s.digests[index] = ContentDigest.fnv1a64(thumbnail) }
        }
    }

    var succeeded: Int { state.withLock { $0.digests.count } }

    /// The digest of all thumbnails in index order.
    var combinedDigest: String {
        let lines = state.withLock { s in s.digests.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)\n" }.joined() }
        return ContentDigest.fnv1a64(Data(lines.utf8))
    }

    func percentile(_ fraction: Double) -> Double {
        let sorted = state.withLock { $0.latencies }.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}

/// Samples the thread count every 5 ms on its own thread and keeps the maximum.
///
/// Thread-safe: `state`'s lock guards the peak and the stop flag.
final class ThreadSampler: Sendable {
    private let state = Locked((peak: 0, stopped: false))

    init() {
        let thread = Thread { [self] in
            while true {
                let count = ProcessProbe.threadCount()
                let stop = state.withLock { s in
                    s.peak = max(s.peak, count)
                    return s.stopped
                }
                if stop { return }
                usleep(5000)
            }
        }
        thread.start()
    }

    func stop() -> Int {
        state.withLock { s in
            s.stopped = true
            return s.peak
        }
    }
}
