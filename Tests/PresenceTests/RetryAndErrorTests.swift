import Foundation
@testable import Presence
import PresenceFixtures
import Testing

@Suite("Retries and typed errors")
struct RetryAndErrorTests {
    @Test("503 with Retry-After is retried and then succeeds")
    func retriesServerErrors() async throws {
        try await withServer { server in
            try registerAvatar(server, at: "/flaky.png", side: 40)
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let url = server.url("/flaky.png", ["fail": "2", "failstatus": "503", "retry-after": "0"])
            let response = try await downloader.image(for: ImageRequest(url: url))
            #expect(response.source == .network)
            #expect(server.stats.requestsByPath["/flaky.png"] == 3)
        }
    }

    @Test("retries stop after the configured attempts and report them")
    func retriesAreBounded() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let result = await load(downloader, ImageRequest(url: server.url("/status/500")))
            guard case let .failure(.status(error, attempts)) = result else { Issue.record("got \(result)"); return }
            #expect(error.statusCode == 500)
            #expect(attempts == 3)
            #expect(server.stats.requestsByPath["/status/500"] == 3)
        }
    }

    @Test("4xx other than 408 and 429 is never retried")
    func clientErrorsNotRetried() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let result = await load(downloader, ImageRequest(url: server.url("/status/404", ["body": "gone"])))
            guard case let .failure(.status(error, attempts)) = result else { Issue.record("got \(result)"); return }
            #expect(error.category == .clientError)
            #expect(error.bodyExcerpt == "gone")
            #expect(attempts == 1)
            #expect(server.stats.requestsByPath["/status/404"] == 1)
        }
    }

    @Test("429 is retried; the Retry-After cap bounds the wait")
    func tooManyRequests() async throws {
        try await withServer { server in
            try registerAvatar(server, at: "/limited.png", side: 40)
            let downloader = try makeDownloader { $0.retryPolicy.maximumRetryAfter = 0.05 }
            defer { downloader.invalidate() }
            let started = Date()
            let url = server.url("/limited.png", ["fail": "1", "failstatus": "429", "retry-after": "3600"])
            _ = try await downloader.image(for: ImageRequest(url: url))
            #expect(Date().timeIntervalSince(started) < 20, "not the hour Retry-After asked for")
            #expect(server.stats.requestsByPath["/limited.png"] == 2)
        }
    }

    @Test("an HTML page served as image/jpeg is a typed not-an-image error")
    func htmlServedAsImage() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let result = await load(downloader, ImageRequest(url: server.url("/html"), spec: .avatar(48)))
            guard case let .failure(.image(.notAnImage(format, excerpt))) = result else { Issue.record("got \(result)"); return }
            #expect(format == .html)
            #expect(excerpt.contains("Over capacity"))
        }
    }

    @Test("a reset connection is a transfer error, retried, then reported")
    func resetIsTransferError() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let result = await load(downloader, ImageRequest(url: server.url("/fault/reset")))
            guard case let .failure(.transfer(error, attempts)) = result else { Issue.record("got \(result)"); return }
            guard case .connectionLost = error else { Issue.record("got \(error)"); return }
            #expect(attempts == 3)
        }
    }

    @Test("backoff doubles with jitter and respects the maximum")
    func backoff() {
        var policy = RetryPolicy()
        policy.baseDelay = 1
        policy.maximumDelay = 3
        let transient = ImageLoadingError.transfer(.timedOut(.idle, seconds: 1), attempts: 1)
        #expect(policy.delay(beforeRetry: 1, after: transient, jitter: 1) == 1)
        #expect(policy.delay(beforeRetry: 2, after: transient, jitter: 1) == 2)
        #expect(policy.delay(beforeRetry: 2, after: transient, jitter: 0.5) == 1)
        #expect(policy.delay(beforeRetry: 3, after: transient, jitter: 1) == nil, "only 2 retries by default")
        policy.maximumRetries = 5
        #expect(policy.delay(beforeRetry: 4, after: transient, jitter: 1) == 3)
        #expect(policy.delay(beforeRetry: 1, after: .image(.empty), jitter: 1) == nil)
        #expect(policy.delay(beforeRetry: 1, after: .transfer(.tooManyRedirects(limit: 10), attempts: 1), jitter: 1) == nil)
    }
}
