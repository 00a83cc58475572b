import Foundation

/// What to do with a response whose headers have arrived. The transfer waits for this answer.
public enum ResponseDisposition: Sendable, Hashable {
    /// Continue, delivering the body as data chunks.
    case allow
    /// Cancel the task; it completes with ``TransferError/cancelled``.
    case cancel
    /// Continue as a download: the body goes to a temporary file and the delegate is told of the
    /// new ``SessionDownloadTask`` through ``SessionDataDelegate/session(_:dataTask:didBecome:)``.
    case becomeDownload
}

/// Session-level events. Every method runs on the session's `delegateQueue`.
///
/// The session keeps a strong reference to its delegate until it is invalidated.
public protocol SessionDelegate: AnyObject, Sendable {
    /// The session was invalidated and has released its delegate. `error` is nil after
    /// `finishTasksAndInvalidate()` and `invalidateAndCancel()`.
    func session(_ session: Session, didBecomeInvalidWithError error: (any Error)?)
}

/// Events common to every task. Every method runs on the delegate queue, in order for each task,
/// never two at once for the same task.
public protocol SessionTaskDelegate: SessionDelegate {
    /// The task ended. `error` is nil when the transfer completed, whatever the HTTP status was.
    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?)
}

/// Events of data tasks. Every method runs on the delegate queue, in order for each task.
public protocol SessionDataDelegate: SessionTaskDelegate {
    /// Whether transfers wait for ``session(_:dataTask:didReceive:completionHandler:)`` before
    /// reading the body. Default true. A delegate that would always allow returns false and saves
    /// each task a round trip to the delegate queue; the response is then not delivered to it.
    var waitsForResponseDisposition: Bool { get }

    /// The final response's headers arrived. The transfer waits until `completionHandler` is
    /// called (from any thread). The default implementation allows it.
    func session(
        _ session: Session,
        dataTask: SessionDataTask,
        didReceive response: HTTPResponse,
        completionHandler: @escaping @Sendable (ResponseDisposition) -> Void
    )
    /// A chunk of the body arrived. Chunks arrive in order and together make the whole body.
    func session(_ session: Session, dataTask: SessionDataTask, didReceive data: Data)
    /// The data task became a download task after ``ResponseDisposition/becomeDownload``; later
    /// events arrive for `downloadTask`.
    func session(_ session: Session, dataTask: SessionDataTask, didBecome downloadTask: SessionDownloadTask)
}

/// Events of download tasks. Every method runs on the delegate queue, in order for each task.
public protocol SessionDownloadDelegate: SessionTaskDelegate {
    /// The body is complete in the file at `location`. Move or read it now: it is removed as soon
    /// as this method returns.
    func session(_ session: Session, downloadTask: SessionDownloadTask, didFinishDownloadingTo location: URL)
    /// Bytes were written to the temporary file.
    func session(
        _ session: Session,
        downloadTask: SessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    )
    /// A download created from resume data continues at `fileOffset` (0 when the server sent the
    /// whole body again because the file changed).
    func session(_ session: Session, downloadTask: SessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64)
}

extension SessionDelegate {
    /// Does nothing.
    public func session(_ session: Session, didBecomeInvalidWithError error: (any Error)?) {}
}

extension SessionTaskDelegate {
    /// Does nothing.
    public func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {}
}

extension SessionDataDelegate {
    /// True: transfers wait for the response disposition.
    public var waitsForResponseDisposition: Bool { true }

    /// Allows the response.
    public func session(
        _ session: Session,
        dataTask: SessionDataTask,
        didReceive response: HTTPResponse,
        completionHandler: @escaping @Sendable (ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }

    /// Does nothing.
    public func session(_ session: Session, dataTask: SessionDataTask, didReceive data: Data) {}

    /// Does nothing.
    public func session(_ session: Session, dataTask: SessionDataTask, didBecome downloadTask: SessionDownloadTask) {}
}

extension SessionDownloadDelegate {
    /// Does nothing.
    public func session(
        _ session: Session,
        downloadTask: SessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {}

    /// Does nothing.
    public func session(_ session: Session, downloadTask: SessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {}
}
