import Foundation
import PresenceLocking

/// Loads images through a download `OperationQueue` of ``ImageDownloadOperation``s — serial by
/// default, at most one download at a time — decodes them on a separate decode queue, caches them,
/// and calls back on ``Configuration-swift.struct/callbackQueue`` (the main queue by default),
/// never synchronously on the caller's thread.
///
/// Identical in-flight requests share one download and one decode; each caller holds its own
/// ``ImageLoadToken``, and the download is cancelled only when the last caller cancels.
///
/// Thread-safe: every method may be called from any thread. The table of in-flight jobs lives in
/// `jobs`, guarded by its lock.
public final class ImageDownloader: Sendable {
    /// Where decoding and thumbnailing happen.
    public enum DecodeMode: String, Sendable, Hashable, Codable, CaseIterable {
        /// On the decode queue, so the next download need not wait for the last decode.
        case separateQueue
        /// Inside the download operation, holding its slot on the download queue.
        case insideOperation
    }

    /// How the downloader schedules, retries, caches and calls back.
    public struct Configuration: Sendable {
        /// Downloads at once; nil for no limit. Default 1: the serial queue.
        public var maximumConcurrentDownloads: Int? = 1
        /// Order of waiting downloads of equal priority.
        public var order: DownloadOrder = .fifo
        /// Where decoding happens.
        public var decodeMode: DecodeMode = .separateQueue
        /// Decodes at once on the decode queue.
        public var maximumConcurrentDecodes: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Retries of transient failures.
        public var retryPolicy = RetryPolicy()
        /// Transfer settings; the per-host connection limit is raised to the download concurrency.
        public var session = SessionConfiguration()
        /// Bytes the memory cache keeps (0 disables it).
        public var memoryCacheCostLimit: Int = 64 << 20
        /// Largest single entry the memory cache keeps.
        public var memoryCacheEntryCostLimit: Int = 4 << 20
        /// Folder of the disk cache, or nil for none.
        public var diskCacheDirectory: URL?
        /// Bytes the disk cache keeps.
        public var diskCacheSizeLimit: Int = 512 << 20
        /// Limits for decoding.
        public var decodingLimits = DecodingLimits()
        /// Where completions and progress are delivered.
        public var callbackQueue: DispatchQueue = .main

        /// The defaults: serial downloads, FIFO, decode on a separate queue, callbacks on main.
        public init() {}
    }

    private struct Waiter {
        let completion: @Sendable (Result<ImageResponse, ImageLoadingError>) -> Void
        let progress: (@Sendable (DownloadProgress) -> Void)?
        let priority: ImageRequest.Priority
        let queue: DispatchQueue
    }

    private struct Job {
        let identifier: Int
        let request: ImageRequest
        var waiters: [Int: Waiter] = [:]
        var operation: ImageDownloadOperation?
        var decode: Operation?

        var priority: ImageRequest.Priority { waiters.values.map(\.priority).max() ?? request.priority }
    }

    private struct Jobs {
        var byKey: [String: Job] = [:]
        var keyByToken: [Int: String] = [:]
        var nextIdentifier = 1
        var isInvalidated = false
        var downloadsStarted = 0
    }

    /// The configuration, as given.
    public let configuration: Configuration
    /// The transfer session all downloads share (one curl multi loop, one connection pool).
    public let session: Session
    /// The download queue: `maxConcurrentOperationCount` is the download concurrency.
    public let downloadQueue: OperationQueue
    /// The decode queue.
    public let decodeQueue: OperationQueue
    /// Processed images by URL and spec.
    public let memoryCache: MemoryCache<String, ImageResponse>
    /// Original bytes and validators, when configured.
    public let diskCache: DiskCache?
    private let scheduler: DownloadScheduler
    private let processor: ImageProcessor
    private let jobs = Locked(Jobs())

    /// Creates a downloader. Throws only when the disk cache folder cannot be created.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        var sessionConfiguration = configuration.session
        sessionConfiguration.httpMaximumConnectionsPerHost = max(
            sessionConfiguration.httpMaximumConnectionsPerHost, configuration.maximumConcurrentDownloads ?? 64
        )
        sessionConfiguration.maximumResponseBytes = Int64(configuration.decodingLimits.maximumInputBytes)
        let delegateQueue = OperationQueue()
        delegateQueue.name = "presence.downloader.delegate"
        session = Session(configuration: sessionConfiguration, delegateQueue: delegateQueue, sessionDescription: "presence.downloader")
        downloadQueue = OperationQueue()
        downloadQueue.name = "presence.downloader.downloads"
        downloadQueue.maxConcurrentOperationCount = configuration.maximumConcurrentDownloads.map { max(1, $0) }
            ?? OperationQueue.defaultMaxConcurrentOperationCount
        decodeQueue = OperationQueue()
        decodeQueue.name = "presence.downloader.decode"
        decodeQueue.maxConcurrentOperationCount = max(1, configuration.maximumConcurrentDecodes)
        memoryCache = MemoryCache(costLimit: configuration.memoryCacheCostLimit, entryCostLimit: configuration.memoryCacheEntryCostLimit)
        diskCache = try configuration.diskCacheDirectory.map { try DiskCache(directory: $0, sizeLimit: configuration.diskCacheSizeLimit) }
        scheduler = DownloadScheduler(queue: downloadQueue, order: configuration.order)
        processor = ImageProcessor(thumbnailer: Thumbnailer(decoder: ImageDecoder(limits: configuration.decodingLimits)))
    }

    deinit {
        session.invalidateAndCancel()
    }

    // MARK: Loading

    /// Loads `request` and calls `completion` once on the callback queue, never synchronously.
    ///
    /// - Parameters:
    ///   - progress: called on the callback queue as bytes arrive.
    ///   - completion: the image, or why not (``ImageLoadingError/cancelled`` after the token is cancelled).
    /// - Returns: a token that cancels this caller's wait.
    @discardableResult
    public func loadImage(
        with request: ImageRequest,
        progress: (@Sendable (DownloadProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResponse, ImageLoadingError>) -> Void
    ) -> ImageLoadToken {
        loadImage(with: request, queue: configuration.callbackQueue, progress: progress, completion: completion)
    }

    /// Loads `request`. Cancelling the calling Swift task cancels this caller's wait (and the
    /// download, when no one else waits for it).
    public func image(for request: ImageRequest) async throws(ImageLoadingError) -> ImageResponse {
        let token = Locked<(token: ImageLoadToken?, cancelled: Bool)>((nil, false))
        let result: Result<ImageResponse, ImageLoadingError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let made = loadImage(with: request, queue: .global(), progress: nil) { continuation.resume(returning: $0) }
                let cancelled = token.withLock { s in
                    s.token = made
                    return s.cancelled
                }
                if cancelled { made.cancel() }
            }
        } onCancel: {
            token.withLock { s in
                s.cancelled = true
                return s.token
            }?.cancel()
        }
        return try result.get()
    }

    private func loadImage(
        with request: ImageRequest,
        queue: DispatchQueue,
        progress: (@Sendable (DownloadProgress) -> Void)?,
        completion: @escaping @Sendable (Result<ImageResponse, ImageLoadingError>) -> Void
    ) -> ImageLoadToken {
        let waiter = Waiter(completion: completion, progress: progress, priority: request.priority, queue: queue)
        if request.cachePolicy != .reloadIgnoringCacheData, var cached = memoryCache.value(for: request.imageCacheKey) {
            cached.source = .memoryCache
            cached.bytesReceived = 0
            cached.request = request
            let hit = cached
            queue.async { completion(.success(hit)) }
            return ImageLoadToken(identifier: 0) { _ in }
        }
        let key = request.coalescingKey
        enum Next { case invalidated, joined(ImageDownloadOperation?, ImageRequest.Priority), start(ImageDownloadOperation) }
        let (identifier, next): (Int, Next) = jobs.withLock { s in
            let identifier = s.nextIdentifier
            s.nextIdentifier += 1
            guard !s.isInvalidated else { return (identifier, .invalidated) }
            s.keyByToken[identifier] = key
            if var job = s.byKey[key] {
                let before = job.priority
                job.waiters[identifier] = waiter
                s.byKey[key] = job
                return (identifier, .joined(job.priority > before ? job.operation : nil, job.priority))
            }
            var job = Job(identifier: identifier, request: request)
            job.waiters[identifier] = waiter
            let operation = makeOperation(for: request, key: key, job: identifier)
            job.operation = operation
            s.byKey[key] = job
            s.downloadsStarted += 1
            return (identifier, .start(operation))
        }
        switch next {
        case .invalidated:
            queue.async { completion(.failure(.downloaderInvalidated)) }
        case let .joined(raised, priority):
            if let raised {
                raised.setPriority(priority)
                scheduler.reprioritize(raised, to: priority)
            }
        case let .start(operation):
            scheduler.enqueue(operation, priority: request.priority)
        }
        return ImageLoadToken(identifier: identifier) { [weak self] in self?.cancel(token: $0) }
    }

    private func makeOperation(for request: ImageRequest, key: String, job: Int) -> ImageDownloadOperation {
        let processor = self.processor
        let inside: (@Sendable (DownloadedData) -> Result<ImageResponse, ImageLoadingError>)? =
            configuration.decodeMode == .insideOperation ? { @Sendable in processor.process($0, for: request) } : nil
        return ImageDownloadOperation(
            request: request, session: session, diskCache: diskCache, retryPolicy: configuration.retryPolicy,
            processor: inside,
            progress: { [weak self] progress in self?.deliver(progress, key: key, job: job) },
            completion: { [weak self] outcome in self?.downloadFinished(outcome, key: key, job: job) }
        )
    }

    // MARK: Stages

    private func deliver(_ progress: DownloadProgress, key: String, job identifier: Int) {
        let waiters = jobs.withLock { s in s.byKey[key].flatMap { $0.identifier == identifier ? Array($0.waiters.values) : nil } ?? [] }
        for waiter in waiters {
            if let handler = waiter.progress { waiter.queue.async { handler(progress) } }
        }
    }

    private func downloadFinished(_ outcome: ImageDownloadOperation.Outcome, key: String, job identifier: Int) {
        switch outcome {
        case let .failed(error):
            complete(key: key, job: identifier, with: .failure(error))
        case let .processed(response):
            complete(key: key, job: identifier, with: .success(response))
        case let .downloaded(data):
            let request: ImageRequest? = jobs.withLock { s in
                s.byKey[key].flatMap { $0.identifier == identifier ? $0.request : nil }
            }
            guard let request else { return }  // every waiter cancelled meanwhile
            let processor = self.processor
            let decode = BlockOperation { [weak self] in
                self?.complete(key: key, job: identifier, with: processor.process(data, for: request))
            }
            let stillWanted = jobs.withLock { s -> Bool in
                guard var job = s.byKey[key], job.identifier == identifier else { return false }
                decode.queuePriority = job.priority.operationQueuePriority
                job.decode = decode
                s.byKey[key] = job
                return true
            }
            if stillWanted { decodeQueue.addOperation(decode) }
        }
    }

    private func complete(key: String, job identifier: Int, with result: Result<ImageResponse, ImageLoadingError>) {
        let waiters: [Waiter] = jobs.withLock { s in
            guard let job = s.byKey[key], job.identifier == identifier else { return [] }
            s.byKey[key] = nil
            for token in job.waiters.keys { s.keyByToken[token] = nil }
            return Array(job.waiters.values)
        }
        if case let .success(response) = result, !response.isStale {
            memoryCache.insert(response, for: response.request.imageCacheKey, cost: response.data.count + response.image.pixels.count)
        }
        for waiter in waiters {
            waiter.queue.async { waiter.completion(result) }
        }
    }

    private func cancel(token identifier: Int) {
        let (waiter, abandoned): (Waiter?, Job?) = jobs.withLock { s in
            guard let key = s.keyByToken.removeValue(forKey: identifier), var job = s.byKey[key],
                  let waiter = job.waiters.removeValue(forKey: identifier) else { return (nil, nil) }
            if job.waiters.isEmpty {
                s.byKey[key] = nil
                return (waiter, job)
            }
            s.byKey[key] = job
            return (waiter, nil)
        }
        if let waiter { waiter.queue.async { waiter.completion(.failure(.cancelled)) } }
        if let abandoned {
            if let operation = abandoned.operation {
                scheduler.remove(operation)
                operation.cancel()
            }
            abandoned.decode?.cancel()
        }
    }

    // MARK: Lifetime and diagnostics

    /// Cancels everything, fails later requests with ``ImageLoadingError/downloaderInvalidated``,
    /// and releases the session.
    public func invalidate() {
        let tokens: [Int] = jobs.withLock { s in
            s.isInvalidated = true
            return Array(s.keyByToken.keys)
        }
        tokens.forEach(cancel(token:))
        session.invalidateAndCancel()
    }

    /// Downloads started (coalesced requests and memory-cache hits do not count).
    public var downloadsStarted: Int { jobs.withLock { $0.downloadsStarted } }
}
