import Foundation
import PresenceLocking

/// One transfer in a ``Session``. Born ``State-swift.enum/suspended``; call ``resume()`` to start it.
///
/// Thread-safe: every method and property may be used from any thread. All mutable state lives in
/// `state`, guarded by its lock; subclasses add none, which is why the class can promise
/// `Sendable`. Mirrors `URLSessionTask`.
public class SessionTask: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// Where a task is in its life.
    public enum State: Sendable, Hashable {
        /// Moving bytes, or waiting for a connection slot.
        case running
        /// Not started yet, or paused by ``SessionTask/suspend()``.
        case suspended
        /// ``SessionTask/cancel()`` was called; the completion callback is on its way.
        case canceling
        /// Finished, successfully or not; ``SessionTask/error`` says which.
        case completed
    }

    /// Lower priority: waits behind default and high priority tasks for a connection.
    public static let lowPriority: Float = 0.25
    /// The default priority.
    public static let defaultPriority: Float = 0.5
    /// Higher priority: starts before default and low priority tasks waiting for a connection.
    public static let highPriority: Float = 0.75

    struct MutableState {
        var state: State = .suspended
        var taskDescription: String?
        var currentRequest: Request
        var response: HTTPResponse?
        var countOfBytesReceived: Int64 = 0
        var countOfBytesExpectedToReceive: Int64 = -1
        var countOfBytesSent: Int64 = 0
        var priority: Float = SessionTask.defaultPriority
        var error: TransferError?
        var hasStarted = false
        var delegate: (any SessionTaskDelegate)?
    }

    /// A number unique among the tasks of its session.
    public let taskIdentifier: Int
    /// The request the task was created with.
    public let originalRequest: Request
    let session: Session
    let channel: DelegateChannel
    let state: Locked<MutableState>

    init(session: Session, identifier: Int, request: Request, delegate: (any SessionTaskDelegate)?, channel: DelegateChannel? = nil) {
        self.session = session
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.channel = channel ?? DelegateChannel(queue: session.delegateQueue)
        self.state = Locked(MutableState(currentRequest: request, delegate: delegate))
    }

    /// The caller's own label for this task.
    public var taskDescription: String? {
        get { state.withLock { $0.taskDescription } }
        set { state.withLock { $0.taskDescription = newValue } }
    }

    /// A delegate for this task alone; when set, it receives this task's callbacks instead of the
    /// session's delegate. Set it before ``resume()``.
    public var delegate: (any SessionTaskDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The task's state.
    public var currentState: State { state.withLock { $0.state } }

    /// The request as last sent: its URL is the one after redirects.
    public var currentRequest: Request { state.withLock { $0.currentRequest } }

    /// The final response, once its headers have arrived.
    public var response: HTTPResponse? { state.withLock { $0.response } }

    /// Body bytes received so far (after content decoding).
    public var countOfBytesReceived: Int64 { state.withLock { $0.countOfBytesReceived } }

    /// The body length the server announced, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { state.withLock { $0.countOfBytesExpectedToReceive } }

    /// Request body bytes sent so far.
    public var countOfBytesSent: Int64 { state.withLock { $0.countOfBytesSent } }

    /// A hint, 0...1, that orders tasks waiting for a connection to the same host: higher first.
    public var priority: Float {
        get { state.withLock { $0.priority } }
        set {
            let clamped = min(1, max(0, newValue.isNaN ? Self.defaultPriority : newValue))
            state.withLock { $0.priority = clamped }
            session.post(.reconsider)
        }
    }

    /// The failure that ended the task, or nil while it runs or when it succeeded.
    public var error: TransferError? { state.withLock { $0.error } }

    /// Starts the task, or continues it after ``suspend()``.
    public func resume() {
        let command: Session.Command? = state.withLock { s in
            guard s.state == .suspended else { return nil }
            s.state = .running
            if s.hasStarted { return .unpause(taskIdentifier) }
            s.hasStarted = true
            return .start(self)
        }
        if let command { session.post(command) }
    }

    /// Pauses the transfer itself: no bytes are read until ``resume()``. The connection is kept.
    public func suspend() {
        let wasRunning = state.withLock { s in
            guard s.state == .running else { return false }
            s.state = .suspended
            return true
        }
        if wasRunning { session.post(.pause(taskIdentifier)) }
    }

    /// Cancels the task: its transfer stops at once and it completes with ``TransferError/cancelled``.
    public func cancel() {
        let (wasActive, neverStarted) = state.withLock { s -> (Bool, Bool) in
            guard s.state != .completed, s.state != .canceling else { return (false, false) }
            s.state = .canceling
            return (true, !s.hasStarted)
        }
        guard wasActive else { return }
        if neverStarted {
            session.completeUnstarted(self, with: .cancelled)
        } else {
            session.post(.cancel(taskIdentifier, resumeData: nil))
        }
    }

    public var description: String {
        "\(type(of: self))(\(taskIdentifier), \(originalRequest.method) \(originalRequest.url.absoluteString))"
    }

    public static func == (lhs: SessionTask, rhs: SessionTask) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Updates from the loop thread

    func update(_ body: (inout MutableState) -> Void) {
        state.withLock { body(&$0) }
    }
}

/// A task that delivers the body in chunks to a ``SessionDataDelegate``, or collects it for a
/// completion handler. Thread-safe, like every ``SessionTask``.
public final class SessionDataTask: SessionTask, @unchecked Sendable {}

/// A task that streams the body to a temporary file and hands its location to a
/// ``SessionDownloadDelegate``; the body is never held in memory. Thread-safe, like every ``SessionTask``.
public final class SessionDownloadTask: SessionTask, @unchecked Sendable {
    let resumeData: ResumeData?

    init(
        session: Session, identifier: Int, request: Request, delegate: (any SessionTaskDelegate)?,
        resumeData: ResumeData?, channel: DelegateChannel? = nil
    ) {
        self.resumeData = resumeData
        super.init(session: session, identifier: identifier, request: request, delegate: delegate, channel: channel)
    }

    /// Cancels the download and hands back data that ``Session/downloadTask(withResumeData:)`` can
    /// continue from, or nil when the server gave no validator (ETag or Last-Modified) to resume
    /// safely with. The handler runs on the session's delegate queue.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        let (wasActive, neverStarted) = state.withLock { s -> (Bool, Bool) in
            guard s.state != .completed, s.state != .canceling else { return (false, false) }
            s.state = .canceling
            return (true, !s.hasStarted)
        }
        guard wasActive else {
            session.delegateQueue.addOperation { completionHandler(nil) }
            return
        }
        if neverStarted {
            session.delegateQueue.addOperation { completionHandler(nil) }
            session.completeUnstarted(self, with: .cancelled)
        } else {
            session.post(.cancel(taskIdentifier, resumeData: completionHandler))
        }
    }
}
