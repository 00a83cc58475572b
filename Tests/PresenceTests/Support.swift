import Foundation
import Presence
import PresenceFixtures
import PresenceLocking
import Testing

func withServer(_ body: (FixtureServer) async throws -> Void) async throws {
    try await FixtureServer.withServer(body)
}

/// A downloader for tests: callbacks on a global queue unless told otherwise, quick retries.
func makeDownloader(
    concurrency: Int? = 1,
    order: DownloadOrder = .fifo,
    decodeMode: ImageDownloader.DecodeMode = .separateQueue,
    cacheDirectory: URL? = nil,
    callbackQueue: DispatchQueue = .global(),
    configure: (inout ImageDownloader.Configuration) -> Void = { _ in }
) throws -> ImageDownloader {
    var configuration = ImageDownloader.Configuration()
    configuration.maximumConcurrentDownloads = concurrency
    configuration.order = order
    configuration.decodeMode = decodeMode
    configuration.diskCacheDirectory = cacheDirectory
    configuration.callbackQueue = callbackQueue
    configuration.retryPolicy.baseDelay = 0.01
    configuration.session.timeoutIntervalForRequest = 10
    configure(&configuration)
    return try ImageDownloader(configuration: configuration)
}

/// A fresh temporary folder, removed by the caller.
func temporaryFolder(_ name: String = "presence-test") -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Loads with the completion-handler API and waits for the result.
func load(_ downloader: ImageDownloader, _ request: ImageRequest) async -> Result<ImageResponse, ImageLoadingError> {
    await withCheckedContinuation { continuation in
        downloader.loadImage(with: request) { continuation.resume(returning: $0) }
    }
}

/// Registers a generated avatar at `path` on `server` and returns its URL.
@discardableResult
func registerAvatar(_ server: FixtureServer, at path: String, side: Int = 120, seed: UInt64 = 1, png: Bool = true,
                    cacheControl: String? = "max-age=3600") throws -> URL {
    let image = AvatarArtist.draw(size: side, seed: seed, transparent: false)
    let bytes = png ? try ImageEncoder.png(image) : try ImageEncoder.jpeg(image, quality: 85)
    server.register(StaticResource(body: [UInt8](bytes), contentType: png ? "image/png" : "image/jpeg", cacheControl: cacheControl), at: path)
    return server.url(path)
}

/// Collects values from callbacks in arrival order.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
    await waitUntil(timeout: timeout, condition)
}
