import Foundation
import PresenceLocking

/// Collects one data task's body for a completion handler. A per-task delegate, so the
/// conveniences run on exactly the same pipeline as delegate-driven tasks.
///
/// Thread-safe: `body`'s lock guards the bytes (callbacks arrive in order on the delegate queue).
final class BodyCollector: SessionDataDelegate {
    private let body = Locked(Data())
    private let completion: @Sendable (Data?, HTTPResponse?, TransferError?) -> Void

    init(completion: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void) {
        self.completion = completion
    }

    /// Every response is allowed; the transfer need not wait for that answer.
    var waitsForResponseDisposition: Bool { false }

    func session(_ session: Session, dataTask: SessionDataTask, didReceive data: Data) {
        body.withLock { $0.append(data) }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        let data = body.withLock { body in
            defer { body = Data() }
            return body
        }
        completion(error == nil ? data : nil, task.response, error)
    }
}

/// Hands one download task's file to a completion handler. The file is removed when the handler
/// returns, as with `URLSession`.
///
/// Thread-safe: `location`'s lock guards the only state.
final class DownloadCollector: SessionDownloadDelegate {
    private let location = Locked<URL?>(nil)
    private let completion: @Sendable (URL?, HTTPResponse?, TransferError?) -> Void

    init(completion: @escaping @Sendable (URL?, HTTPResponse?, TransferError?) -> Void) {
        self.completion = completion
    }

    func session(_ session: Session, downloadTask: SessionDownloadTask, didFinishDownloadingTo location: URL) {
        // Keep the file past this callback: move it aside for the completion handler.
        let kept = location.deletingLastPathComponent().appendingPathComponent("presence-kept-\(UUID().uuidString).tmp")
        if (try? FileManager.default.moveItem(at: location, to: kept)) != nil {
            self.location.withLock { $0 = kept }
        }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        let file = location.withLock { $0 }
        completion(error == nil ? file : nil, task.response, error ?? (file == nil ? .cannotWriteFile(path: "", reason: "the download produced no file") : nil))
        if let file { try? FileManager.default.removeItem(at: file) }
    }
}

extension Session {
    /// Creates a data task whose whole body goes to `completionHandler` (on the delegate queue),
    /// suspended. The session delegate sees no data events for it.
    public func dataTask(
        with request: Request,
        completionHandler: @escaping @Sendable (Data?, HTTPResponse?, TransferError?) -> Void
    ) -> SessionDataTask {
        let collector = BodyCollector(completion: completionHandler)
        return register { SessionDataTask(session: self, identifier: $0, request: request, delegate: collector) }
    }

    /// Creates a download task whose file goes to `completionHandler` (on the delegate queue),
    /// suspended. Move the file inside the handler: it is removed when the handler returns.
    public func downloadTask(
        with request: Request,
        completionHandler: @escaping @Sendable (URL?, HTTPResponse?, TransferError?) -> Void
    ) -> SessionDownloadTask {
        let collector = DownloadCollector(completion: completionHandler)
        return register {
            SessionDownloadTask(session: self, identifier: $0, request: request, delegate: collector, resumeData: nil)
        }
    }

    /// Fetches `request` and returns its body and response. Any HTTP status is returned as is
    /// (use ``HTTPResponse/validateStatus(body:)``); only client-side failures throw. Cancelling
    /// the calling Swift task cancels the transfer. May be called from any task or thread.
    public func data(for request: Request, priority: Float = SessionTask.defaultPriority) async throws(TransferError) -> (Data, HTTPResponse) {
        let box = TaskBox()
        let result: Result<(Data, HTTPResponse), TransferError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = dataTask(with: request) { data, response, error in
                    if let data, let response {
                        continuation.resume(returning: .success((data, response)))
                    } else {
                        continuation.resume(returning: .failure(error ?? .cancelled))
                    }
                }
                task.priority = priority
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }

    /// Downloads `request` to a file the caller now owns (in the configuration's temporary
    /// folder) and returns its location with the response. Cancelling the calling Swift task
    /// cancels the transfer.
    public func download(for request: Request) async throws(TransferError) -> (URL, HTTPResponse) {
        let box = TaskBox()
        let result: Result<(URL, HTTPResponse), TransferError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = downloadTask(with: request) { location, response, error in
                    guard let location, let response else {
                        continuation.resume(returning: .failure(error ?? .cancelled))
                        return
                    }
                    let owned = location.deletingLastPathComponent().appendingPathComponent("presence-\(UUID().uuidString).download")
                    do {
                        try FileManager.default.moveItem(at: location, to: owned)
                        continuation.resume(returning: .success((owned, response)))
                    } catch {
                        continuation.resume(returning: .failure(.cannotWriteFile(path: owned.path, reason: "\(error)")))
                    }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }
}

/// Links a Swift task's cancellation to a session task that may not exist yet.
///
/// Thread-safe: `state`'s lock guards the task and the cancelled flag.
final class TaskBox: Sendable {
    private let state = Locked<(task: SessionTask?, cancelled: Bool)>((nil, false))

    func start(_ task: SessionTask) {
        let cancelled = state.withLock { s in
            s.task = task
            return s.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { s in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }
}
