import CCurl
import Foundation
import PresenceLocking

/// A set of transfers sharing one libcurl multi handle, its connection pool and one dedicated
/// network thread. Mirrors `URLSession`.
///
/// Thread-safe: every method may be called from any thread. The public API never touches libcurl;
/// it posts commands to the session's network thread (blocked in `curl_multi_poll`) and wakes it.
/// Delegate callbacks run on ``delegateQueue``.
///
/// The session keeps its delegate, and itself, alive until it is invalidated: call
/// ``finishTasksAndInvalidate()`` or ``invalidateAndCancel()`` when done.
public final class Session: Sendable {
    enum Command: Sendable {
        case start(SessionTask)
        case pause(Int)
        case unpause(Int)
        case cancel(Int, resumeData: (@Sendable (Data?) -> Void)?)
        case disposition(Int, ResponseDisposition)
        /// Something changed that may let a waiting transfer start, or the loop end.
        case reconsider
        case invalidate(cancelAll: Bool)
    }

    struct Shared {
        var commands: [Command] = []
        var delegate: (any SessionDelegate)?
        var tasks: [Int: SessionTask] = [:]
        var nextIdentifier = 1
        var isInvalidated = false
        var loopHasExited = false
    }

    /// The configuration the session was created with (a copy).
    public let configuration: SessionConfiguration
    /// The queue every delegate callback and completion handler runs on.
    public let delegateQueue: OperationQueue
    /// A label for the network thread and diagnostics.
    public let sessionDescription: String

    /// A process-wide session with the default configuration and no delegate, like
    /// `URLSession.shared`. Invalidating it does nothing.
    public static let shared = Session(sessionDescription: "presence.shared", isShared: true)

    private let isShared: Bool

    let multi: MultiHandle
    /// Guards the command mailbox, the delegate and the registry of unfinished tasks.
    let shared: Locked<Shared>

    /// Creates a session and starts its network thread.
    ///
    /// - Parameters:
    ///   - configuration: timeouts, limits and headers; copied.
    ///   - delegate: receives session and task events until the session is invalidated.
    ///   - delegateQueue: where callbacks run; nil creates a serial queue.
    public convenience init(
        configuration: SessionConfiguration = .default,
        delegate: (any SessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil,
        sessionDescription: String = "presence.session"
    ) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue,
                  sessionDescription: sessionDescription, isShared: false)
    }

    private init(
        configuration: SessionConfiguration = .default,
        delegate: (any SessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil,
        sessionDescription: String,
        isShared: Bool
    ) {
        CurlRuntime.ensureInitialised()
        self.isShared = isShared
        self.configuration = configuration
        self.sessionDescription = sessionDescription
        if let delegateQueue {
            self.delegateQueue = delegateQueue
        } else {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.name = "\(sessionDescription).delegate"
            self.delegateQueue = queue
        }
        self.multi = MultiHandle(configuration: configuration)
        self.shared = Locked(Shared(delegate: delegate))
        let thread = Thread { [self] in
            MultiLoop(session: self).run()
        }
        thread.name = "\(sessionDescription).network"
        thread.start()
    }

    /// The session's delegate; nil after invalidation.
    public var delegate: (any SessionDelegate)? { shared.withLock { $0.delegate } }

    // MARK: Creating tasks

    /// Creates a data task for `request`, suspended. Its events go to the session's delegate.
    public func dataTask(with request: Request) -> SessionDataTask {
        register { SessionDataTask(session: self, identifier: $0, request: request, delegate: nil) }
    }

    /// Creates a `GET` data task for `url`, suspended.
    public func dataTask(with url: URL) -> SessionDataTask {
        dataTask(with: Request(url: url))
    }

    /// Creates a download task for `request`, suspended. The body streams to a temporary file.
    public func downloadTask(with request: Request) -> SessionDownloadTask {
        register { SessionDownloadTask(session: self, identifier: $0, request: request, delegate: nil, resumeData: nil) }
    }

    /// Creates a `GET` download task for `url`, suspended.
    public func downloadTask(with url: URL) -> SessionDownloadTask {
        downloadTask(with: Request(url: url))
    }

    /// Creates a download task that continues a cancelled one from the resume data that
    /// ``SessionDownloadTask/cancel(byProducingResumeData:)`` produced. Unusable resume data makes
    /// the task fail with ``TransferError/invalidResumeData(_:)`` when resumed.
    public func downloadTask(withResumeData resumeData: Data) -> SessionDownloadTask {
        switch Result(catching: { () throws(TransferError) in try ResumeData.decode(resumeData) }) {
        case let .success(decoded):
            return register {
                SessionDownloadTask(session: self, identifier: $0, request: decoded.request, delegate: nil, resumeData: decoded)
            }
        case let .failure(error):
            let task = register {
                SessionDownloadTask(
                    session: self, identifier: $0, request: Request(url: URL(string: "about:blank")!),
                    delegate: nil, resumeData: nil
                )
            }
            task.update { $0.error = error }
            return task
        }
    }

    func register<Task: SessionTask>(_ make: (Int) -> Task) -> Task {
        shared.withLock { s in
            let task = make(s.nextIdentifier)
            s.nextIdentifier += 1
            if !s.isInvalidated { s.tasks[task.taskIdentifier] = task }
            return task
        }
    }

    // MARK: Session management

    /// Calls `completionHandler` on the delegate queue with every task that has not completed.
    public func getAllTasks(completionHandler: @escaping @Sendable ([SessionTask]) -> Void) {
        let tasks = allTasks
        delegateQueue.addOperation { completionHandler(tasks) }
    }

    /// Every task of this session that has not completed, ordered by identifier.
    public var allTasks: [SessionTask] {
        shared.withLock { $0.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// Lets running tasks finish, then releases the delegate (after telling it) and stops the
    /// network thread. Tasks never resumed are cancelled; new tasks fail with `.sessionInvalidated`.
    public func finishTasksAndInvalidate() {
        invalidate(cancelAll: false)
    }

    /// Cancels every task, then releases the delegate (after telling it) and stops the network thread.
    public func invalidateAndCancel() {
        invalidate(cancelAll: true)
    }

    private func invalidate(cancelAll: Bool) {
        guard !isShared else { return }
        let unstarted: [SessionTask] = shared.withLock { s in
            guard !s.isInvalidated else { return [] }
            s.isInvalidated = true
            return s.tasks.values.filter { $0.state.withLock { !$0.hasStarted } }
        }
        for task in unstarted {
            task.state.withLock { $0.state = .canceling }
            completeUnstarted(task, with: cancelAll ? .cancelled : .sessionInvalidated)
        }
        post(.invalidate(cancelAll: cancelAll))
    }

    // MARK: Plumbing shared with tasks and the loop

    /// Queues a command for the network thread and wakes it. Safe from any thread.
    func post(_ command: Command) {
        shared.withLock { s in
            guard !s.loopHasExited else { return }
            s.commands.append(command)
            multi.wakeUp()
        }
    }

    func takeCommands() -> [Command] {
        shared.withLock { s in
            defer { s.commands.removeAll(keepingCapacity: true) }
            return s.commands
        }
    }

    /// Completes a task that never reached the network thread.
    func completeUnstarted(_ task: SessionTask, with error: TransferError) {
        recordCompletion(of: task, error: error, delegate: effectiveDelegate(for: task))
        post(.reconsider)
    }

    /// Ends `task` with `error`: records it, unregisters it, and tells `delegate` after every
    /// callback already sent for the task. The one way any task completes.
    func recordCompletion(of task: SessionTask, error: TransferError?, delegate: (any SessionDelegate)?) {
        task.update {
            $0.state = .completed
            $0.error = error
        }
        shared.withLock { _ = $0.tasks.removeValue(forKey: task.taskIdentifier) }
        let taskDelegate = delegate as? any SessionTaskDelegate
        task.channel.send { [self] in
            taskDelegate?.session(self, task: task, didCompleteWithError: error)
        }
    }

    func replaceTask(_ old: SessionTask, with new: SessionTask) {
        shared.withLock { s in
            s.tasks.removeValue(forKey: old.taskIdentifier)
            s.tasks[new.taskIdentifier] = new
        }
    }

    func nextTaskIdentifier() -> Int {
        shared.withLock { s in
            defer { s.nextIdentifier += 1 }
            return s.nextIdentifier
        }
    }

    func effectiveDelegate(for task: SessionTask) -> (any SessionDelegate)? {
        if let own = task.delegate { return own }
        return shared.withLock { $0.delegate }
    }

    var hasUnfinishedTasks: Bool { shared.withLock { !$0.tasks.isEmpty } }

    /// Called by the network thread as its last act: frees the multi handle, tells the delegate
    /// and lets go of it.
    func loopDidExit() {
        let delegate = shared.withLock { s -> (any SessionDelegate)? in
            s.loopHasExited = true
            defer { s.delegate = nil }
            return s.delegate
        }
        multi.cleanUp()
        if let delegate {
            delegateQueue.addOperation { [self] in
                delegate.session(self, didBecomeInvalidWithError: nil)
            }
        }
    }
}

/// libcurl's process-wide initialisation, done once before the first session.
enum CurlRuntime {
    private static let initialised: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    static func ensureInitialised() {
        _ = initialised
    }
}
