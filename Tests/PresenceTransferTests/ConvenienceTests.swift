import Foundation
import PresenceFixtures
import PresenceTransfer
import Testing

@Suite("Completion handlers and async")
struct ConvenienceTests {
    @Test func asyncDataReturnsBodyAndResponse() async throws {
        try await withServer { server in
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(for: Request(url: server.url("/bytes/1234", ["seed": "3"])))
            #expect(data == Data(PatternBytes.make(count: 1234, seed: 3)))
            #expect(response.statusCode == 200)
            #expect(response.expectedContentLength == 1234)
            #expect(response.entityTag != nil)
        }
    }

    @Test func postingAStatusUpdateSendsMethodHeadersAndBody() async throws {
        try await withServer { server in
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            let body = Data("status=Hello%20from%20Presence".utf8)
            var request = Request(url: server.url("/echo"), method: "POST", body: body)
            request.headers["Content-Type"] = "application/x-www-form-urlencoded"
            request.headers["Authorization"] = "Bearer token-1"
            let (data, response) = try await session.data(for: request)
            #expect(response.statusCode == 200)
            let echo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(echo["method"] as? String == "POST")
            #expect(echo["body"] as? String == "status=Hello%20from%20Presence")
            let headers = try #require(echo["headers"] as? [String: String])
            #expect(headers["authorization"] == "Bearer token-1")
            #expect(headers["user-agent"]?.hasPrefix("Presence/") == true)
        }
    }

    @Test func countOfBytesSentCountsTheUpload() async throws {
        try await withServer { server in
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            let body = Data(PatternBytes.make(count: 200_000, seed: 1))
            let done = AsyncStream<Void>.makeStream()
            let task = session.dataTask(with: Request(url: server.url("/echo"), method: "PUT", body: body)) { _, _, _ in
                done.continuation.yield()
            }
            task.resume()
            for await _ in done.stream { break }
            #expect(task.countOfBytesSent == 200_000)
        }
    }

    @Test func asyncDownloadHandsOverTheFile() async throws {
        try await withServer { server in
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            let (location, response) = try await session.download(for: Request(url: server.url("/bytes/77777", ["seed": "8"])))
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: location) == Data(PatternBytes.make(count: 77777, seed: 8)))
        }
    }

    @Test func cancellingTheSwiftTaskCancelsTheTransfer() async throws {
        try await withServer { server in
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            let fetch = Task { try await session.data(for: Request(url: server.url("/fault/stall"))) }
            try await Task.sleep(for: .milliseconds(200))
            fetch.cancel()
            let result = await fetch.result
            #expect(throws: TransferError.cancelled) { try result.get() }
        }
    }

    @Test func completionHandlerRunsOnTheDelegateQueue() async throws {
        try await withServer { server in
            let queue = OperationQueue()
            let session = Session(delegateQueue: queue)
            defer { session.finishTasksAndInvalidate() }
            let onQueue: Bool = await withCheckedContinuation { continuation in
                session.dataTask(with: Request(url: server.url("/bytes/10"))) { _, _, _ in
                    continuation.resume(returning: OperationQueue.current === queue)
                }.resume()
            }
            #expect(onQueue)
        }
    }

    @Test func headRequestsHaveNoBody() async throws {
        try await withServer { server in
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(for: Request(url: server.url("/bytes/5000"), method: "HEAD"))
            #expect(data.isEmpty)
            #expect(response.statusCode == 200)
            #expect(response.headers["Content-Length"] == "5000")
        }
    }
}
