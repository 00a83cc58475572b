import Foundation
import PresenceFixtures
import PresenceLocking
import PresenceTransfer
import Synchronization
import Testing

@Suite("Delegate pipeline")
struct DelegateTests {
    @Test("callbacks arrive on the delegate queue and never overlap for one task, even on a concurrent queue")
    func callbacksSerialPerTask() async throws {
        try await withServer { server in
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 4
            try await withRecordingSession(delegateQueue: queue) { session, delegate in
                let tasks = (0..<20).map { index in
                    session.dataTask(with: server.url("/bytes/120000", ["seed": "\(index)", "rate": "2000000"]))
                }
                tasks.forEach { $0.resume() }
                await delegate.waitForCompletions(20)
                for (index, task) in tasks.enumerated() {
                    let record = delegate.record(task.taskIdentifier)
                    #expect(record.events.first == "response")
                    #expect(record.events.last == "complete")
                    #expect(delegate.body(task.taskIdentifier) == Data(PatternBytes.make(count: 120_000, seed: UInt64(index))))
                }
            }
        }
    }

    @Test("the transfer waits for the response disposition: every chunk arrives after the answer")
    func transferWaitsForDisposition() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                delegate.respond(with: .allow, after: 0.3)
                let task = session.dataTask(with: server.url("/bytes/50000"))
                task.resume()
                await delegate.waitForCompletions(1)
                let record = delegate.record(task.taskIdentifier)
                let answeredAt = try #require(record.answeredAt)
                #expect(!record.chunkTimes.isEmpty)
                #expect(record.chunkTimes.allSatisfy { $0 >= answeredAt }, "no body before the answer")
                #expect(delegate.body(task.taskIdentifier).count == 50000)
            }
        }
    }

    @Test("disposition cancel ends the task as cancelled, also for bodiless responses")
    func dispositionCancel() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                delegate.respond(with: .cancel)
                let withBody = session.dataTask(with: server.url("/bytes/50000"))
                let bodiless = session.dataTask(with: server.url("/bytes/0"))
                withBody.resume()
                bodiless.resume()
                await delegate.waitForCompletions(2)
                #expect(withBody.error == .cancelled)
                #expect(bodiless.error == .cancelled)
                #expect(delegate.record(withBody.taskIdentifier).chunks.isEmpty)
            }
        }
    }

    @Test("disposition becomeDownload hands the body over as a file")
    func dispositionBecomeDownload() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                delegate.respond(with: .becomeDownload)
                let task = session.dataTask(with: server.url("/bytes/80000", ["seed": "4"]))
                task.resume()
                await delegate.waitForCompletions(1)
                let events = delegate.record(task.taskIdentifier).events
                let became = try #require(events.first { $0.hasPrefix("became-download:") })
                let downloadIdentifier = try #require(Int(became.split(separator: ":")[1]))
                let record = delegate.record(downloadIdentifier)
                #expect(record.downloadedBytes == Data(PatternBytes.make(count: 80000, seed: 4)))
                #expect(record.error == nil && record.completed)
                #expect(delegate.body(task.taskIdentifier).isEmpty)
            }
        }
    }

    @Test("becomeDownload for a bodiless response completes with an empty file, and the session can still end")
    func becomeDownloadWithoutBody() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                delegate.respond(with: .becomeDownload)
                let task = session.dataTask(with: server.url("/bytes/0"))
                task.resume()
                await delegate.waitForCompletions(1)
                let became = try #require(delegate.record(task.taskIdentifier).events.first { $0.hasPrefix("became-download:") })
                let downloadIdentifier = try #require(Int(became.split(separator: ":")[1]))
                #expect(delegate.record(downloadIdentifier).downloadedBytes == Data())
                #expect(delegate.record(downloadIdentifier).error == nil)
                session.finishTasksAndInvalidate()
                #expect(await eventually { delegate.state.withLock { $0.invalidated } }, "no transfer is left behind")
            }
        }
    }

    @Test("the session keeps its delegate until invalidated, then releases it and itself")
    func invalidationReleasesDelegate() async throws {
        weak var weakDelegate: RecordingDelegate?
        weak var weakSession: Session?
        try await withServer { server in
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            var delegate: RecordingDelegate? = RecordingDelegate(queue: queue)
            weakDelegate = delegate
            var session: Session? = Session(delegate: delegate, delegateQueue: queue)
            weakSession = session
            let task = session!.dataTask(with: server.url("/bytes/1000"))
            task.resume()
            await delegate!.waitForCompletions(1)
            let recorder = delegate!
            delegate = nil
            #expect(weakDelegate != nil, "the session still holds its delegate")
            session!.finishTasksAndInvalidate()
            session = nil
            #expect(await eventually { recorder.state.withLock { $0.invalidated } })
        }
        #expect(await eventually { weakDelegate == nil && weakSession == nil })
    }

    @Test("getAllTasks lists unfinished tasks")
    func getAllTasks() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                let slow = session.dataTask(with: server.url("/bytes/10", ["delay": "300"]))
                let idle = session.dataTask(with: server.url("/bytes/10"))
                slow.resume()
                let listed: [SessionTask] = await withCheckedContinuation { continuation in
                    session.getAllTasks { continuation.resume(returning: $0) }
                }
                #expect(Set(listed.map(\.taskIdentifier)) == [slow.taskIdentifier, idle.taskIdentifier])
                idle.cancel()
                await delegate.waitForCompletions(2)
                #expect(session.allTasks.isEmpty)
            }
        }
    }
}

/// A data delegate that declines the response disposition and only collects the body.
private final class NoDispositionDelegate: SessionDataDelegate {
    let state = Locked((responses: 0, body: Data(), done: false))

    var waitsForResponseDisposition: Bool { false }

    func session(_ session: Session, dataTask: SessionDataTask, didReceive response: HTTPResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        state.withLock { $0.responses += 1 }
        completionHandler(.cancel)
    }

    func session(_ session: Session, dataTask: SessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        state.withLock { $0.done = true }
    }
}

@Suite("Response disposition opt-out")
struct ResponseDispositionOptOutTests {
    @Test("a delegate that does not wait for the disposition is not asked, and gets the whole body")
    func optOut() async throws {
        try await withServer { server in
            let delegate = NoDispositionDelegate()
            let session = Session(delegate: delegate)
            defer { session.finishTasksAndInvalidate() }
            let task = session.dataTask(with: server.url("/bytes/40000", ["seed": "6"]))
            task.resume()
            #expect(await eventually { delegate.state.withLock { $0.done } })
            #expect(task.error == nil)
            #expect(delegate.state.withLock { $0.responses } == 0)
            #expect(delegate.state.withLock { $0.body } == Data(PatternBytes.make(count: 40_000, seed: 6)))
        }
    }
}
