import Benchmark
import Foundation
import PresenceFixtures
import PresenceTransfer

/// Counts completions; no data delegate, so bodies are dropped as they arrive.
private final class CompletionCounter: SessionTaskDelegate {
    let finished: @Sendable () -> Void
    init(_ finished: @escaping @Sendable () -> Void) { self.finished = finished }
    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) { finished() }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .peakMemoryResident, .threadsRunning],
        maxDuration: .seconds(10), maxIterations: 20
    )

    Benchmark("200 bodies of 20-150 kB over 16 connections, discarded") { benchmark in
        try await FixtureServer.withServer { server in
            let urls = (0..<200).map { server.url("/bytes/\(20_000 + ($0 * 7919) % 130_001)", ["seed": "\($0)"]) }
            for _ in benchmark.scaledIterations {
                let done = AsyncStream<Void>.makeStream()
                var configuration = SessionConfiguration()
                configuration.httpMaximumConnectionsPerHost = 16
                let session = Session(configuration: configuration, delegate: CompletionCounter { done.continuation.yield() })
                benchmark.startMeasurement()
                for url in urls { session.dataTask(with: url).resume() }
                var remaining = urls.count
                for await _ in done.stream {
                    remaining -= 1
                    if remaining == 0 { break }
                }
                benchmark.stopMeasurement()
                session.finishTasksAndInvalidate()
            }
        }
    }
}
