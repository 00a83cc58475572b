import Foundation
import PresenceFixtures
import PresenceTransfer
import Testing

@Suite("Cancel, suspend, resume and resume data")
struct LifecycleTests {
    @Test("cancelling mid-transfer stops it and the server sees the connection go")
    func cancelMidTransfer() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                let task = session.dataTask(with: server.url("/bytes/400000", ["holdafter": "100000", "gate": "c"]))
                task.resume()
                #expect(await eventually { task.countOfBytesReceived == 100_000 && server.responsesWaiting(atGate: "c") == 1 })
                task.cancel()
                #expect(task.currentState == .canceling || task.currentState == .completed)
                await delegate.waitForCompletions(1)
                #expect(task.error == .cancelled)
                #expect(task.currentState == .completed)
                #expect(await eventually { server.stats.responsesAbandonedByClient == 1 })
            }
        }
    }

    @Test("a task cancelled before it starts completes without a request")
    func cancelBeforeStart() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                let task = session.dataTask(with: server.url("/bytes/10"))
                task.cancel()
                await delegate.waitForCompletions(1)
                #expect(task.error == .cancelled)
                #expect(server.stats.requestsServed == 0)
            }
        }
    }

    @Test("suspend pauses the transfer itself and resume continues it intact")
    func suspendAndResume() async throws {
        try await withServer { server in
            try await withRecordingSession { session, delegate in
                let task = session.dataTask(with: server.url("/bytes/300000", ["seed": "11", "holdafter": "100000", "gate": "s"]))
                task.resume()
                #expect(await eventually { task.countOfBytesReceived == 100_000 && server.responsesWaiting(atGate: "s") == 1 })
                task.suspend()
                #expect(task.currentState == .suspended)
                try await Task.sleep(for: .milliseconds(100))  // let the pause reach the network thread
                server.openGate("s")  // the server sends the rest now; the paused transfer must not read it
                try await Task.sleep(for: .milliseconds(400))
                #expect(task.countOfBytesReceived == 100_000)
                #expect(delegate.body(task.taskIdentifier).count == 100_000)
                task.resume()
                await delegate.waitForCompletions(1)
                #expect(task.error == nil)
                #expect(delegate.body(task.taskIdentifier) == Data(PatternBytes.make(count: 300_000, seed: 11)))
            }
        }
    }

    @Test("resume data round trip gives a byte-identical file, resumed with a 206")
    func resumeDataRoundTrip() async throws {
        try await withServer { server in
            let body = PatternBytes.make(count: 500_000, seed: 21)
            server.register(body, at: "/big.bin")
            try await withRecordingSession { session, delegate in
                let first = session.downloadTask(with: server.url("/big.bin", ["holdafter": "200000", "gate": "r"]))
                first.resume()
                #expect(await eventually { first.countOfBytesReceived == 200_000 && server.responsesWaiting(atGate: "r") == 1 })
                let resumeData: Data? = await withCheckedContinuation { continuation in
                    first.cancel { continuation.resume(returning: $0) }
                }
                await delegate.waitForCompletions(1)
                #expect(first.error == .cancelled)
                let data = try #require(resumeData)
                server.openGate("r")  // the resumed request carries the same query
                let second = session.downloadTask(withResumeData: data)
                second.resume()
                await delegate.waitForCompletions(2)
                let record = delegate.record(second.taskIdentifier)
                #expect(second.error == nil)
                #expect(record.resumedAt == 200_000)
                #expect(record.downloadedBytes == Data(body))
                #expect(await eventually { server.stats.partialResponses == 1 })
            }
        }
    }

    @Test("resuming after the file changed on the server starts again at offset 0")
    func resumeAfterChange() async throws {
        try await withServer { server in
            server.register(PatternBytes.make(count: 300_000, seed: 1), at: "/changing.bin")
            try await withRecordingSession { session, delegate in
                let first = session.downloadTask(with: server.url("/changing.bin", ["holdafter": "50000", "gate": "x"]))
                first.resume()
                #expect(await eventually { first.countOfBytesReceived == 50_000 && server.responsesWaiting(atGate: "x") == 1 })
                let resumeData: Data? = await withCheckedContinuation { continuation in
                    first.cancel { continuation.resume(returning: $0) }
                }
                let changed = PatternBytes.make(count: 200_000, seed: 2)
                server.register(changed, at: "/changing.bin")
                server.openGate("x")
                let second = session.downloadTask(withResumeData: try #require(resumeData))
                second.resume()
                await delegate.waitForCompletions(2)
                #expect(delegate.record(second.taskIdentifier).resumedAt == 0)
                #expect(delegate.record(second.taskIdentifier).downloadedBytes == Data(changed))
            }
        }
    }

    @Test("garbage resume data fails the task with invalidResumeData")
    func invalidResumeData() async throws {
        try await withRecordingSession { session, delegate in
            let task = session.downloadTask(withResumeData: Data("nonsense".utf8))
            task.resume()
            await delegate.waitForCompletions(1)
            guard case .invalidResumeData = task.error else { Issue.record("got \(String(describing: task.error))"); return }
        }
    }
}
