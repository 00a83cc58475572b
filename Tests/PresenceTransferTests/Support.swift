import Foundation
import PresenceFixtures
import PresenceTransfer
import PresenceLocking
import Testing

/// Records every delegate event per task, checks each arrives on the delegate queue and that no
/// two callbacks for one task overlap, and lets a test await completions.
final class RecordingDelegate: SessionDataDelegate, SessionDownloadDelegate {
    struct TaskRecord {
        var chunks: [Data] = []
        var response: HTTPResponse?
        var progress: [(written: Int64, total: Int64, expected: Int64)] = []
        var downloadedBytes: Data?
        /// When the delegate answered the response, and when each data chunk arrived.
        var answeredAt: Date?
        var chunkTimes: [Date] = []
        var resumedAt: Int64?
        var completed = false
        var error: TransferError?
        var events: [String] = []
    }

    struct State {
        var records: [Int: TaskRecord] = [:]
        var busyTasks: Set<Int> = []
        var violations: [String] = []
        var completionOrder: [Int] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var invalidated = false
        var dispositionForResponse: ResponseDisposition = .allow
        var dispositionDelay: TimeInterval = 0
    }

    let state = Locked(State())
    let expectedQueue: OperationQueue

    init(queue: OperationQueue) {
        expectedQueue = queue
    }

    var violations: [String] { state.withLock { $0.violations } }

    func record(_ id: Int) -> TaskRecord { state.withLock { $0.records[id] ?? TaskRecord() } }

    func body(_ id: Int) -> Data { record(id).chunks.reduce(into: Data()) { $0.append($1) } }

    func respond(with disposition: ResponseDisposition, after delay: TimeInterval = 0) {
        state.withLock {
            $0.dispositionForResponse = disposition
            $0.dispositionDelay = delay
        }
    }

    private func enter(_ task: SessionTask, _ event: String, _ update: (inout TaskRecord) -> Void) {
        let id = task.taskIdentifier
        let onQueue = OperationQueue.current === expectedQueue
        state.withLock { s in
            if !onQueue { s.violations.append("\(event) for \(id) off the delegate queue") }
            if s.busyTasks.contains(id) { s.violations.append("\(event) for \(id) overlapped another callback") }
            s.busyTasks.insert(id)
            s.records[id, default: TaskRecord()].events.append(event)
            update(&s.records[id, default: TaskRecord()])
        }
        Thread.sleep(forTimeInterval: 0.0005)  // widen the window in which an overlap would show
        state.withLock { _ = $0.busyTasks.remove(id) }
    }

    func session(_ session: Session, dataTask: SessionDataTask, didReceive response: HTTPResponse, completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        enter(dataTask, "response") { $0.response = response }
        let (disposition, delay) = state.withLock { ($0.dispositionForResponse, $0.dispositionDelay) }
        let id = dataTask.taskIdentifier
        let answer: @Sendable () -> Void = { [self] in
            state.withLock { $0.records[id, default: TaskRecord()].answeredAt = Date() }
            completionHandler(disposition)
        }
        if delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: answer)
        } else {
            answer()
        }
    }

    func session(_ session: Session, dataTask: SessionDataTask, didReceive data: Data) {
        enter(dataTask, "data") {
            $0.chunks.append(data)
            $0.chunkTimes.append(Date())
        }
    }

    func session(_ session: Session, dataTask: SessionDataTask, didBecome downloadTask: SessionDownloadTask) {
        enter(dataTask, "became-download:\(downloadTask.taskIdentifier)") { _ in }
    }

    func session(_ session: Session, downloadTask: SessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        enter(downloadTask, "progress") { $0.progress.append((bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)) }
    }

    func session(_ session: Session, downloadTask: SessionDownloadTask, didFinishDownloadingTo location: URL) {
        let bytes = try? Data(contentsOf: location)
        enter(downloadTask, "finished") { $0.downloadedBytes = bytes }
    }

    func session(_ session: Session, downloadTask: SessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        enter(downloadTask, "resumed") { $0.resumedAt = fileOffset }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        enter(task, "complete") {
            $0.completed = true
            $0.error = error
        }
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.completionOrder.append(task.taskIdentifier)
            let done = s.completionOrder.count
            let due = s.waiters.filter { $0.count <= done }.map(\.continuation)
            s.waiters.removeAll { $0.count <= done }
            return due
        }
        ready.forEach { $0.resume() }
    }

    func session(_ session: Session, didBecomeInvalidWithError error: (any Error)?) {
        state.withLock { $0.invalidated = true }
    }

    var completionOrder: [Int] { state.withLock { $0.completionOrder } }

    /// Waits until `count` tasks have completed, failing the test after `timeout`.
    func waitForCompletions(_ count: Int, timeout: TimeInterval = 30) async {
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let now = self.state.withLock { s -> Bool in
                        if s.completionOrder.count >= count { return true }
                        s.waiters.append((count, continuation))
                        return false
                    }
                    if now { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return false
            }
            let first = await group.next()!
            if !first { self.releaseWaiters() }
            group.cancelAll()
            return first
        }
        #expect(finished, "only \(completionOrder.count) of \(count) tasks completed within \(timeout) s")
    }

    private func releaseWaiters() {
        let all = state.withLock { s in
            defer { s.waiters.removeAll() }
            return s.waiters.map(\.continuation)
        }
        all.forEach { $0.resume() }
    }
}

/// A session with a recording delegate on its own serial delegate queue, invalidated afterwards.
func withRecordingSession(
    configuration: SessionConfiguration = .default,
    delegateQueue: OperationQueue? = nil,
    _ body: (Session, RecordingDelegate) async throws -> Void
) async throws {
    let queue = delegateQueue ?? {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    let delegate = RecordingDelegate(queue: queue)
    let session = Session(configuration: configuration, delegate: delegate, delegateQueue: queue)
    defer { session.invalidateAndCancel() }
    try await body(session, delegate)
    #expect(delegate.violations.isEmpty, "\(delegate.violations.prefix(5))")
}

func withServer(_ body: (FixtureServer) async throws -> Void) async throws {
    try await FixtureServer.withServer(body)
}

/// Threads in this process.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// Polls `condition` every 10 ms for up to `timeout`.
func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
    await waitUntil(timeout: timeout, condition)
}
