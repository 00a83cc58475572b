import Benchmark
import Foundation
import Presence
import PresenceFixtures

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .peakMemoryResident, .threadsRunning],
        maxDuration: .seconds(10), maxIterations: 10
    )

    for width in [1, 4, 16] {
        Benchmark("ImageDownloader, \(width) at once: 60 avatars with 10 ms latency, 96 px thumbnails") { benchmark in
            try await FixtureServer.withServer { server in
                var options = FollowerWorld.Options()
                options.count = 60
                options.latencyMilliseconds = 10
                options.maximumSide = 400
                let world = FollowerWorld(server: server, options: options)
                world.warmUp()
                let urls = world.users.compactMap { $0.listedURL.flatMap(URL.init(string:)) }
                for _ in benchmark.scaledIterations {
                    var configuration = ImageDownloader.Configuration()
                    configuration.maximumConcurrentDownloads = width
                    configuration.memoryCacheCostLimit = 0
                    configuration.callbackQueue = .global()
                    let downloader = try ImageDownloader(configuration: configuration)
                    benchmark.startMeasurement()
                    await withTaskGroup(of: Void.self) { group in
                        for url in urls {
                            group.addTask { blackHole(try? await downloader.image(for: ImageRequest(url: url, spec: .avatar(96)))) }
                        }
                    }
                    benchmark.stopMeasurement()
                    downloader.invalidate()
                }
            }
        }
    }
}
