import Foundation
import Presence
import PresenceFixtures
import Testing

@Suite("Cancellation and coalescing")
struct CancellationTests {
    @Test("cancelling mid-transfer stops the transfer (the server sees the connection go) and finishes promptly")
    func cancelMidTransfer() async throws {
        try await withServer { server in
            let url = try registerAvatar(server, at: "/slow.png", side: 600)
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let progressed = Recorder<Int64>()
            let result = Recorder<ImageLoadingError?>()
            let token = downloader.loadImage(with: ImageRequest(url: server.url("/slow.png", ["holdafter": "1000", "gate": "slow"]), spec: .avatar(64)),
                                             progress: { progressed.append($0.receivedBytes) }) { outcome in
                if case let .failure(error) = outcome { result.append(error) } else { result.append(nil) }
            }
            _ = url
            #expect(await eventually { !progressed.all.isEmpty && server.responsesWaiting(atGate: "slow") == 1 })
            let cancelledAt = Date()
            token.cancel()
            #expect(await eventually { result.all.count == 1 })
            #expect(Date().timeIntervalSince(cancelledAt) < 1, "cancellation is prompt")
            #expect(result.all.first == .some(.cancelled))
            #expect(await eventually { server.stats.responsesAbandonedByClient == 1 })
            #expect(await eventually { downloader.downloadQueue.operationCount == 0 }, "the operation finished")
        }
    }

    @Test("cancelled operations still queued never start a request")
    func queuedCancelledNeverRequest() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            try registerAvatar(server, at: "/first.png", side: 40)
            for index in 0..<5 { try registerAvatar(server, at: "/queued/\(index).png", side: 40) }
            let outcomes = Recorder<String>()
            downloader.loadImage(with: ImageRequest(url: server.url("/first.png", ["gate": "q"]))) { _ in outcomes.append("first") }
            #expect(await eventually { server.responsesWaiting(atGate: "q") == 1 })
            let tokens = (0..<5).map { index in
                downloader.loadImage(with: ImageRequest(url: server.url("/queued/\(index).png"))) { result in
                    if case .failure(.cancelled) = result { outcomes.append("cancelled") }
                }
            }
            tokens.forEach { $0.cancel() }
            server.openGate("q")
            #expect(await eventually { outcomes.all.count == 6 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(outcomes.all.filter { $0 == "cancelled" }.count == 5)
            #expect(server.stats.requestsByPath.keys.filter { $0.hasPrefix("/queued/") }.isEmpty)
        }
    }

    @Test("20 requests for one URL make one server request; cancelling 19 still delivers to the 20th")
    func coalescing() async throws {
        try await withServer { server in
            try registerAvatar(server, at: "/shared.png", side: 200)
            let downloader = try makeDownloader(concurrency: 4)
            defer { downloader.invalidate() }
            let url = server.url("/shared.png", ["gate": "shared"])
            let cancelled = Recorder<Int>()
            let delivered = Recorder<Int>()
            var tokens: [ImageLoadToken] = []
            for index in 0..<20 {
                tokens.append(downloader.loadImage(with: ImageRequest(url: url, spec: .avatar(96))) { result in
                    switch result {
                    case .success: delivered.append(index)
                    case .failure(.cancelled): cancelled.append(index)
                    case .failure: break
                    }
                })
            }
            #expect(await eventually { server.responsesWaiting(atGate: "shared") == 1 })
            for token in tokens.prefix(19) { token.cancel() }
            #expect(await eventually { cancelled.all.count == 19 })
            server.openGate("shared")
            #expect(await eventually { delivered.all == [19] })
            #expect(server.stats.requestsByPath["/shared.png"] == 1)
            #expect(server.stats.responsesAbandonedByClient == 0, "the shared download was not cancelled")
            #expect(downloader.downloadsStarted == 1)
        }
    }

    @Test("cancelling every waiter cancels the shared download")
    func lastWaiterCancels() async throws {
        try await withServer { server in
            try registerAvatar(server, at: "/all.png", side: 200)
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let url = server.url("/all.png", ["gate": "all"])
            let cancelled = Recorder<Int>()
            let tokens = (0..<3).map { index in
                downloader.loadImage(with: ImageRequest(url: url)) { result in
                    if case .failure(.cancelled) = result { cancelled.append(index) }
                }
            }
            #expect(await eventually { server.responsesWaiting(atGate: "all") == 1 })
            tokens.forEach { $0.cancel() }
            #expect(await eventually { cancelled.all.count == 3 })
            #expect(await eventually { server.stats.responsesAbandonedByClient == 1 })
        }
    }

    @Test("cancelling the Swift task cancels an async load")
    func asyncCancellation() async throws {
        try await withServer { server in
            try registerAvatar(server, at: "/async.png", side: 200)
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let task = Task { try await downloader.image(for: ImageRequest(url: server.url("/async.png", ["gate": "never"]))) }
            #expect(await eventually { server.responsesWaiting(atGate: "never") == 1 })
            task.cancel()
            let result = await task.result
            #expect(throws: ImageLoadingError.cancelled) { try result.get() }
        }
    }
}
