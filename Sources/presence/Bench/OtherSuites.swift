import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Presence
import PresenceFixtures
import PresenceLocking

/// The transfer-engine suite: many bodies over a fixed number of connections, bodies discarded.
enum TransferSuite {
    /// Runs `engine` ("presence" or "urlsession") over `urls` with `connections`.
    static func run(engine: String, urls: [URL], connections: Int, scenario: String) async -> BenchMeasurement {
        let sampler = ThreadSampler()
        let cpuBefore = ProcessProbe.cpuSeconds()
        let started = Date()
        let countdown = Countdown(urls.count)
        let succeeded = Locked(0)
        let done: @Sendable (Bool) -> Void = { ok in
            if ok { succeeded.withLock { $0 += 1 } }
            countdown.tick()
        }
        if engine == "urlsession" {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = connections
            let session = URLSession(configuration: configuration, delegate: DiscardingURLSessionDelegate(done), delegateQueue: nil)
            await countdown.wait(after: { for url in urls { session.dataTask(with: url).resume() } })
            session.finishTasksAndInvalidate()
        } else {
            var configuration = SessionConfiguration()
            configuration.httpMaximumConnectionsPerHost = connections
            let session = Session(configuration: configuration, delegate: DiscardingSessionDelegate(done))
            await countdown.wait(after: { for url in urls { session.dataTask(with: url).resume() } })
            session.finishTasksAndInvalidate()
        }
        return BenchMeasurement(
            strategy: engine, concurrency: connections, scenario: scenario, entries: urls.count,
            succeeded: succeeded.withLock { $0 }, wallSeconds: Date().timeIntervalSince(started),
            cpuSeconds: ProcessProbe.cpuSeconds() - cpuBefore, peakResidentBytes: ProcessProbe.peakResidentBytes(),
            peakThreads: sampler.stop(), latencyP50Milliseconds: 0, latencyP99Milliseconds: 0, outputDigest: "", note: "bodies discarded"
        )
    }
}

/// Counts completions of a Presence session; no data delegate, so bodies are dropped as they arrive.
private final class DiscardingSessionDelegate: SessionTaskDelegate {
    let done: @Sendable (Bool) -> Void
    init(_ done: @escaping @Sendable (Bool) -> Void) { self.done = done }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        done(error == nil && task.response?.statusCode == 200)
    }
}

/// Counts completions of a Foundation session and drops every body chunk.
private final class DiscardingURLSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Immutable after init: the only stored property is a Sendable closure.
    let done: @Sendable (Bool) -> Void
    init(_ done: @escaping @Sendable (Bool) -> Void) { self.done = done }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        done(error == nil && (task.response as? HTTPURLResponse)?.statusCode == 200)
    }
}

/// The thumbnail suite: one thread, in process, over a folder of images, for at least a while.
enum ThumbnailSuite {
    static let corpusKinds: [(name: String, width: Int, height: Int, png: Bool, alpha: Bool)] = [
        ("jpeg-400", 400, 400, false, false), ("jpeg-48", 48, 48, false, false),
        ("png-rgba-400", 400, 400, true, true), ("jpeg-1600x1200", 1600, 1200, false, false),
    ]

    /// Writes `perKind` images of each corpus kind into `folder`.
    static func makeCorpus(in folder: URL, perKind: Int) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for kind in corpusKinds {
            for index in 0..<perKind {
                let side = max(kind.width, kind.height)
                let square = AvatarArtist.draw(size: side, seed: UInt64(index * 31 + kind.width), transparent: kind.alpha)
                let image = crop(square, width: kind.width, height: kind.height)
                let data = kind.png ? try ImageEncoder.png(image, keepAlpha: true) : try ImageEncoder.jpeg(image, quality: 85)
                try data.write(to: folder.appendingPathComponent("\(kind.name)-\(index).\(kind.png ? "png" : "jpg")"))
            }
        }
    }

    private static func crop(_ image: DecodedImage, width: Int, height: Int) -> DecodedImage {
        guard width != image.width || height != image.height else { return image }
        let top = (image.height - height) / 2, left = (image.width - width) / 2
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for row in top..<(top + height) {
            let start = row * image.bytesPerRow + left * 4
            pixels.append(contentsOf: image.pixels[start..<(start + width * 4)])
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }

    /// Thumbnails every file to 96×96 PNG on this thread, repeating for at least `minimumSeconds`.
    static func run(folder: URL, size: Int, minimumSeconds: Double) throws -> BenchMeasurement {
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { ["png", "jpg"].contains($0.pathExtension) }.sorted { $0.path < $1.path }
        let inputs = try files.map { try Data(contentsOf: $0) }
        let thumbnailer = Thumbnailer()
        let spec = AvatarSpec.avatar(size)
        let recorder = BenchRecorder()
        let cpuBefore = ProcessProbe.cpuSeconds()
        let started = Date()
        var made = 0
        repeat {
            for (index, data) in inputs.enumerated() {
                let begun = Date()
                let thumbnail = try thumbnailer.thumbnail(from: data, spec: spec).data
                if made < inputs.count { recorder.record(index: index, started: begun, thumbnail: thumbnail) }
                made += 1
            }
        } while Date().timeIntervalSince(started) < minimumSeconds
        let wall = Date().timeIntervalSince(started)
        return BenchMeasurement(
            strategy: "presence", concurrency: 1, scenario: "thumbnails", entries: made, succeeded: made, wallSeconds: wall,
            cpuSeconds: ProcessProbe.cpuSeconds() - cpuBefore, peakResidentBytes: ProcessProbe.peakResidentBytes(),
            peakThreads: ProcessProbe.threadCount(), latencyP50Milliseconds: recorder.percentile(0.5),
            latencyP99Milliseconds: recorder.percentile(0.99), outputDigest: recorder.combinedDigest, note: "one thread, Lanczos-3"
        )
    }
}
