import Foundation
import PresenceFixtures
import PresenceTransfer
import Testing

@Suite("Fault routes end tasks with the right TransferError")
struct FaultTests {
    func outcome(_ path: String, _ query: KeyValuePairs<String, String> = [:], configure: (inout SessionConfiguration) -> Void = { _ in })
        async throws -> (error: TransferError?, elapsed: TimeInterval, response: HTTPResponse?)
    {
        var result: (TransferError?, TimeInterval, HTTPResponse?) = (nil, 0, nil)
        try await withServer { server in
            var configuration = SessionConfiguration()
            configuration.timeoutIntervalForRequest = 15  // a safety net; each test asserts its own error
            configure(&configuration)
            try await withRecordingSession(configuration: configuration) { session, delegate in
                let started = Date()
                let task = session.dataTask(with: server.url(path, query))
                task.resume()
                await delegate.waitForCompletions(1, timeout: 20)
                result = (task.error, Date().timeIntervalSince(started), task.response)
                #expect(delegate.record(task.taskIdentifier).error == task.error)
            }
        }
        return result
    }

    @Test func resetMidBodyIsConnectionLost() async throws {
        let (error, _, _) = try await outcome("/fault/reset", ["size": "200000", "after": "50000"])
        guard case .connectionLost = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test func truncatedBodyIsConnectionLost() async throws {
        let (error, _, _) = try await outcome("/fault/truncate", ["length": "100000", "send": "40000"])
        guard case .connectionLost = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test func stallEndsByIdleTimeout() async throws {
        let (error, elapsed, _) = try await outcome("/fault/stall") { $0.timeoutIntervalForRequest = 0.5 }
        #expect(error == .timedOut(.idle, seconds: 0.5))
        #expect(elapsed >= 0.45 && elapsed < 3, "elapsed \(elapsed)")
    }

    @Test func redirectLoopIsTooManyRedirects() async throws {
        let (error, _, _) = try await outcome("/fault/redirect-loop") { $0.maximumRedirects = 5 }
        #expect(error == .tooManyRedirects(limit: 5))
    }

    @Test func redirectToFileIsRefused() async throws {
        let (error, _, _) = try await outcome("/fault/redirect-file")
        #expect(error == .disallowedProtocol("file"))
    }

    @Test func redirectIsFollowedAndReported() async throws {
        let (error, _, response) = try await outcome("/fault/redirect", ["to": "/bytes/64"])
        #expect(error == nil)
        #expect(response?.statusCode == 200)
        #expect(response?.url.path == "/bytes/64")
    }

    /// The process-growth half of this proof runs in an isolated process, where peak RSS means
    /// something: see PresenceCLITests' `presence get` test.
    @Test func hugeBodyStopsAtTheLimit() async throws {
        var delivered = 0
        try await withServer { server in
            var configuration = SessionConfiguration()
            configuration.maximumResponseBytes = 8 << 20
            try await withRecordingSession(configuration: configuration) { session, delegate in
                let task = session.dataTask(with: server.url("/fault/huge", ["size": "\(1 << 30)", "chunked": "1"]))
                task.resume()
                await delegate.waitForCompletions(1, timeout: 20)
                #expect(task.error == .responseTooLarge(limit: 8 << 20))
                delivered = delegate.body(task.taskIdentifier).count
                #expect(await eventually { server.stats.responsesAbandonedByClient == 1 }, "the server saw the transfer stop")
            }
        }
        #expect(delivered <= 8 << 20, "nothing past the limit reached the delegate")
    }

    @Test func hugeBodyWithContentLengthIsRefusedBeforeReading() async throws {
        let (error, _, _) = try await outcome("/fault/huge", ["size": "\(1 << 30)"]) { $0.maximumResponseBytes = 1 << 20 }
        #expect(error == .responseTooLarge(limit: 1 << 20))
    }

    @Test func gzipBombStopsAtTheDecodedLimit() async throws {
        let (error, _, _) = try await outcome("/fault/gzip-bomb", ["size": "\(64 << 20)"]) { $0.maximumResponseBytes = 4 << 20 }
        #expect(error == .responseTooLarge(limit: 4 << 20))
    }

    @Test func httpErrorStatusIsNotATransferError() async throws {
        let (error, _, response) = try await outcome("/status/503", ["retry-after": "7"])
        #expect(error == nil)
        #expect(response?.statusCode == 503)
        #expect(throws: HTTPStatusError.self) { try response?.validateStatus(body: Data("busy".utf8)) }
        do {
            try response?.validateStatus(body: Data("busy <b>now</b>".utf8))
        } catch {
            #expect(error.category == .serverError)
            #expect(error.retryAfter == 7)
            #expect(error.bodyExcerpt == "busy <b>now</b>")
            #expect(error.isRetryable)
        }
    }

    @Test func refusedConnectionIsCannotConnect() async throws {
        // Bind and release a port so that nothing listens on it.
        let server = try await FixtureServer.start()
        let deadURL = server.url("/bytes/10")
        try await server.stop()
        try await withRecordingSession { session, delegate in
            let task = session.dataTask(with: deadURL)
            task.resume()
            await delegate.waitForCompletions(1)
            guard case .cannotConnect = task.error else { Issue.record("got \(String(describing: task.error))"); return }
        }
    }

    @Test func disallowedSchemesAreRefusedBeforeConnecting() async throws {
        try await withRecordingSession { session, delegate in
            let ftp = session.dataTask(with: URL(string: "ftp://127.0.0.1/file")!)
            let file = session.dataTask(with: URL(fileURLWithPath: "/etc/passwd"))
            ftp.resume()
            file.resume()
            await delegate.waitForCompletions(2)
            #expect(ftp.error == .disallowedProtocol("ftp"))
            #expect(file.error == .disallowedProtocol("file"))
        }
    }

    @Test func statusRangesClassify() throws {
        let url = URL(string: "http://example.invalid/")!
        func category(_ code: Int) -> HTTPStatusError.Category? {
            do {
                try HTTPResponse(statusCode: code, headers: [:], url: url, expectedContentLength: 0).validateStatus()
                return nil
            } catch {
                return error.category
            }
        }
        #expect(category(200) == nil)
        #expect(category(299) == nil)
        #expect(category(404) == .clientError)
        #expect(category(429) == .clientError)
        #expect(category(500) == .serverError)
        #expect(category(304) == .unexpected)
    }
}
