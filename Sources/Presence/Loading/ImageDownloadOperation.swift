import Foundation
import PresenceLocking

/// What a download produced before decoding: the original bytes and where they came from.
///
/// A value type; safe to use from any thread.
public struct DownloadedData: Sendable {
    /// The original image bytes.
    public var data: Data
    /// Network, disk cache, or revalidated.
    public var source: ImageResponse.Source
    /// A stale entry served because the network failed (or offline).
    public var isStale: Bool
    /// Body bytes received from the network.
    public var bytesReceived: Int
    /// Attempts made (1 when the first succeeded; 0 when served from the cache without a request).
    public var attempts: Int
}

/// Downloads one image: an asynchronous, KVO-compliant `Operation` (the "Presence 3" requirement).
///
/// It consults the disk cache (fresh entries need no request, stale ones are revalidated), runs one
/// ``SessionDataTask`` at a time on the shared ``Session``, retries transient failures with backoff,
/// and falls back to a stale entry when the network fails. When given a processor it also decodes
/// and thumbnails inside the operation; otherwise the ``ImageDownloader`` does that on its decode queue.
///
/// Thread-safe: `start()` is called by an `OperationQueue`, `cancel()` may be called from any
/// thread. All mutable state lives in `state`, guarded by its lock; `isExecuting` and `isFinished`
/// change inside `willChangeValue`/`didChangeValue`, which Linux's Foundation acts on. The
/// `@unchecked Sendable` rests on that lock.
public final class ImageDownloadOperation: Operation, SessionDataDelegate, @unchecked Sendable {
    /// The outcome delivered to the completion handler.
    public enum Outcome: Sendable {
        /// Bytes, to be decoded by the caller.
        case downloaded(DownloadedData)
        /// Decoded and processed inside the operation.
        case processed(ImageResponse)
        /// Failed or cancelled.
        case failed(ImageLoadingError)
    }

    private enum Phase { case waiting, executing, finished }

    private struct State {
        var phase: Phase = .waiting
        var task: SessionDataTask?
        var body = Data()
        var attempts = 0
        var cached: CacheEntry?
        var retryTimer: DispatchWorkItem?
        var delivered = false
        var startedAt: Date?
    }

    /// The request being loaded.
    public let request: ImageRequest
    private let session: Session
    private let diskCache: DiskCache?
    private let retryPolicy: RetryPolicy
    private let processor: (@Sendable (DownloadedData) -> Result<ImageResponse, ImageLoadingError>)?
    private let progressHandler: @Sendable (DownloadProgress) -> Void
    private let completionHandler: @Sendable (Outcome) -> Void
    private let state = Locked(State())

    /// Creates an operation; it does nothing until an `OperationQueue` starts it. The body size is
    /// bounded by `session`'s ``SessionConfiguration/maximumResponseBytes``.
    ///
    /// - Parameters:
    ///   - processor: decodes and thumbnails inside the operation, or nil to hand bytes back.
    ///   - progress: called on the session's delegate queue as bytes arrive.
    ///   - completion: called exactly once, on an arbitrary thread, before the operation finishes.
    public init(
        request: ImageRequest,
        session: Session,
        diskCache: DiskCache? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(),
        processor: (@Sendable (DownloadedData) -> Result<ImageResponse, ImageLoadingError>)? = nil,
        progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in },
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        self.request = request
        self.session = session
        self.diskCache = diskCache
        self.retryPolicy = retryPolicy
        self.processor = processor
        self.progressHandler = progress
        self.completionHandler = completion
        super.init()
        queuePriority = request.priority.operationQueuePriority
        name = request.url.absoluteString
    }

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { state.withLock { $0.phase == .executing } }
    public override var isFinished: Bool { state.withLock { $0.phase == .finished } }

    /// Attempts made so far.
    public var attempts: Int { state.withLock { $0.attempts } }

    /// When a queue started the operation (nil while it waits), for latency measurements.
    public var startedAt: Date? { state.withLock { $0.startedAt } }

    public override func start() {
        state.withLock { $0.startedAt = Date() }
        guard !isCancelled else {
            complete(.failed(.cancelled))
            return
        }
        transition(to: .executing)
        beginAttempt()
    }

    /// Cancels the operation: a running transfer is cancelled at once, a retry wait ends, and the
    /// operation completes with ``ImageLoadingError/cancelled`` promptly. A queued operation never
    /// makes a request.
    public override func cancel() {
        super.cancel()
        let (task, timer, waitingForRetry) = state.withLock { s in
            (s.task, s.retryTimer, s.phase == .executing && s.task == nil && s.retryTimer != nil)
        }
        task?.cancel()
        timer?.cancel()
        if waitingForRetry { complete(.failed(.cancelled)) }
    }

    /// Changes the priority of the transfer in flight (and of the operation while queued).
    func setPriority(_ priority: ImageRequest.Priority) {
        queuePriority = priority.operationQueuePriority
        state.withLock { $0.task }?.priority = priority.transferPriority
    }

    // MARK: Attempts

    private func beginAttempt() {
        guard !isCancelled else {
            complete(.failed(.cancelled))
            return
        }
        var conditionalHeaders = HTTPHeaders()
        if state.withLock({ $0.attempts }) == 0, let diskCache, request.cachePolicy != .reloadIgnoringCacheData,
           let entry = diskCache.entry(for: request.dataCacheKey) {
            state.withLock { $0.cached = entry }
            switch request.cachePolicy {
            case .returnCacheDataDontLoad, .returnCacheDataElseLoad:
                deliver(DownloadedData(data: entry.data, source: .diskCache, isStale: !entry.metadata.isFresh(), bytesReceived: 0, attempts: 0))
                return
            default:
                if entry.metadata.isFresh() {
                    deliver(DownloadedData(data: entry.data, source: .diskCache, isStale: false, bytesReceived: 0, attempts: 0))
                    return
                }
                if let tag = entry.metadata.entityTag { conditionalHeaders["If-None-Match"] = tag }
                if let modified = entry.metadata.lastModified { conditionalHeaders["If-Modified-Since"] = modified }
            }
        } else if request.cachePolicy == .returnCacheDataDontLoad {
            complete(.failed(.notCached(request.url)))
            return
        }
        var transferRequest = Request(url: request.url, headers: request.headers)
        for field in conditionalHeaders { transferRequest.headers[field.name] = field.value }
        let task = session.dataTask(with: transferRequest)
        task.delegate = self
        task.priority = request.priority.transferPriority
        let proceed = state.withLock { s -> Bool in
            guard s.phase == .executing, !s.delivered else { return false }
            s.attempts += 1
            s.body = Data()
            s.task = task
            return true
        }
        guard proceed else { return }
        task.resume()
        if isCancelled { task.cancel() }
    }

    // MARK: SessionDataDelegate (on the session's delegate queue)

    /// Responses are judged after the body arrives (status, then the bytes), so the transfer
    /// need not wait for the delegate queue before reading it.
    public var waitsForResponseDisposition: Bool { false }

    public func session(_ session: Session, dataTask: SessionDataTask, didReceive data: Data) {
        let received = state.withLock { s -> Int in
            s.body.append(data)
            return s.body.count
        }
        progressHandler(DownloadProgress(receivedBytes: Int64(received), expectedBytes: dataTask.countOfBytesExpectedToReceive))
    }

    public func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        let (body, attempts, wasCurrent) = state.withLock { s -> (Data, Int, Bool) in
            let current = s.task === task
            if current { s.task = nil }
            defer { if current { s.body = Data() } }
            return (s.body, s.attempts, current)
        }
        guard wasCurrent else { return }
        if let error {
            finishAttempt(with: error == .cancelled && isCancelled ? .cancelled : .transfer(error, attempts: attempts))
            return
        }
        guard let response = task.response else {
            finishAttempt(with: .transfer(.badServerResponse(CurlDiagnostic(code: 0, message: "no response")), attempts: attempts))
            return
        }
        handle(response, body: body, attempts: attempts)
    }

    private func handle(_ response: HTTPResponse, body: Data, attempts: Int) {
        let cached = state.withLock { $0.cached }
        if response.statusCode == 304, let cached {
            let metadata = cached.metadata.refreshed(by: response)
            try? diskCache?.store(cached.data, metadata: metadata, for: request.dataCacheKey)
            deliver(DownloadedData(data: cached.data, source: .revalidated, isStale: false, bytesReceived: body.count, attempts: attempts))
            return
        }
        do {
            try response.validateStatus(body: body)
        } catch {
            finishAttempt(with: .status(error, attempts: attempts))
            return
        }
        if let diskCache, let metadata = CacheMetadata.from(response, body: body) {
            try? diskCache.store(body, metadata: metadata, for: request.dataCacheKey)
        }
        deliver(DownloadedData(data: body, source: .network, isStale: false, bytesReceived: body.count, attempts: attempts))
    }

    /// A failed attempt: retry after a backoff, fall back to a stale entry, or fail.
    private func finishAttempt(with error: ImageLoadingError) {
        if error == .cancelled || isCancelled {
            complete(.failed(.cancelled))
            return
        }
        let attempts = state.withLock { $0.attempts }
        if let delay = retryPolicy.delay(beforeRetry: attempts, after: error) {
            let work = DispatchWorkItem { [self] in
                state.withLock { $0.retryTimer = nil }
                beginAttempt()
            }
            state.withLock { $0.retryTimer = work }
            DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: work)
            if isCancelled {
                work.cancel()
                complete(.failed(.cancelled))
            }
            return
        }
        if error.isRetryable || isServerOrTransportFailure(error), let cached = state.withLock({ $0.cached }) {
            deliver(DownloadedData(data: cached.data, source: .diskCache, isStale: true, bytesReceived: 0, attempts: attempts))
            return
        }
        complete(.failed(error))
    }

    private func isServerOrTransportFailure(_ error: ImageLoadingError) -> Bool {
        switch error {
        case .transfer: true
        case let .status(status, _): status.category == .serverError
        default: false
        }
    }

    // MARK: Finishing

    private func deliver(_ downloaded: DownloadedData) {
        guard let processor else {
            complete(.downloaded(downloaded))
            return
        }
        guard !isCancelled else {
            complete(.failed(.cancelled))
            return
        }
        switch processor(downloaded) {
        case let .success(response): complete(.processed(response))
        case let .failure(error): complete(.failed(error))
        }
    }

    private func complete(_ outcome: Outcome) {
        let first = state.withLock { s -> Bool in
            guard !s.delivered else { return false }
            s.delivered = true
            return true
        }
        guard first else { return }
        completionHandler(outcome)
        transition(to: .finished)
    }

    private func transition(to phase: Phase) {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        state.withLock { $0.phase = phase }
        didChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
    }
}
