import Foundation
import Presence
import PresenceFixtures
import Testing

@Suite("ImageDownloader scheduling: serial by default, concurrency, order, main-queue callbacks")
struct SchedulingTests {
    @Test("the default downloader is serial: never more than one request in flight over 50 images")
    func defaultIsSerial() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            #expect(downloader.downloadQueue.maxConcurrentOperationCount == 1)
            for index in 0..<50 { try registerAvatar(server, at: "/serial/\(index).png", side: 40, seed: UInt64(index)) }
            server.resetStats()
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let url = server.url("/serial/\(index).png", ["delay": "5"])
                        return (try? await downloader.image(for: ImageRequest(url: url, spec: .avatar(32)))) != nil
                    }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(results == 50)
            #expect(server.stats.requestsServed == 50)
            #expect(server.stats.maxInFlight == 1)
        }
    }

    @Test("with N = 8 the server sees 8 requests in flight and never more")
    func concurrencyEight() async throws {
        try await withServer { server in
            let downloader = try makeDownloader(concurrency: 8)
            defer { downloader.invalidate() }
            for index in 0..<48 { try registerAvatar(server, at: "/eight/\(index).png", side: 40, seed: UInt64(index)) }
            server.resetStats()
            let done = Recorder<Bool>()
            for index in 0..<48 {
                downloader.loadImage(with: ImageRequest(url: server.url("/eight/\(index).png", ["gate": "eight"]), spec: .avatar(32))) {
                    done.append((try? $0.get()) != nil)
                }
            }
            // Hold the responses: exactly 8 requests arrive and no more while they are held.
            #expect(await eventually { server.responsesWaiting(atGate: "eight") == 8 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.responsesWaiting(atGate: "eight") == 8)
            server.openGate("eight")
            #expect(await eventually(timeout: 30) { done.all.count == 48 })
            #expect(done.all.allSatisfy { $0 })
            #expect(server.stats.requestsServed == 48)
            #expect(server.stats.maxInFlight == 8)
        }
    }

    /// Marks the main queue, so a block can prove it runs there. (Under Swift Testing on Linux the
    /// main thread is parked in dispatchMain() and libdispatch drains the main queue on pool
    /// threads, so Thread.isMainThread cannot tell.)
    static let mainQueueKey: DispatchSpecificKey<String> = {
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        return key
    }()

    static var onMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == "main" }

    @Test("completion and progress run on the main queue by default, never synchronously on the caller")
    func mainQueueDelivery() async throws {
        try await withServer { server in
            let url = try registerAvatar(server, at: "/main.png", side: 300)
            let downloader = try makeDownloader(callbackQueue: .main)
            #expect(try ImageDownloader().configuration.callbackQueue.label == DispatchQueue.main.label, "main is the default")
            defer { downloader.invalidate() }
            _ = Self.mainQueueKey
            #expect(!Self.onMainQueue, "the test itself is off the main queue")
            let progressOnMain = Recorder<Bool>()
            let returned = Recorder<Bool>()
            let (onMain, callerHadReturned): (Bool, Bool) = await withCheckedContinuation { continuation in
                downloader.loadImage(with: ImageRequest(url: url, spec: .avatar(64)), progress: { _ in
                    progressOnMain.append(Self.onMainQueue)
                }) { _ in
                    continuation.resume(returning: (Self.onMainQueue, !returned.all.isEmpty))
                }
                returned.append(true)
            }
            #expect(onMain)
            #expect(callerHadReturned)
            #expect(!progressOnMain.all.isEmpty && progressOnMain.all.allSatisfy { $0 })
        }
    }

    @Test("LIFO starts the newest waiting request first; FIFO the oldest")
    func order() async throws {
        for order in DownloadOrder.allCases {
            try await withServer { server in
                let downloader = try makeDownloader(order: order)
                defer { downloader.invalidate() }
                try registerAvatar(server, at: "/blocker.png", side: 40)
                for name in ["a", "b", "c", "d"] { try registerAvatar(server, at: "/\(name).png", side: 40) }
                let finished = Recorder<String>()
                let blocker = downloader.loadImage(with: ImageRequest(url: server.url("/blocker.png", ["gate": "g"]))) { _ in finished.append("blocker") }
                _ = blocker
                #expect(await eventually { server.responsesWaiting(atGate: "g") == 1 })
                for name in ["a", "b", "c", "d"] {
                    downloader.loadImage(with: ImageRequest(url: server.url("/\(name).png"))) { _ in finished.append(name) }
                }
                server.openGate("g")
                #expect(await eventually { finished.all.count == 5 })
                #expect(finished.all == (order == .fifo ? ["blocker", "a", "b", "c", "d"] : ["blocker", "d", "c", "b", "a"]))
            }
        }
    }

    @Test("higher priority waiting requests start first")
    func priority() async throws {
        try await withServer { server in
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            for name in ["blocker", "low", "normal", "high"] { try registerAvatar(server, at: "/\(name).png", side: 40) }
            let finished = Recorder<String>()
            downloader.loadImage(with: ImageRequest(url: server.url("/blocker.png", ["gate": "p"]))) { _ in finished.append("blocker") }
            #expect(await eventually { server.responsesWaiting(atGate: "p") == 1 })
            for (name, priority) in [("low", ImageRequest.Priority.low), ("normal", .normal), ("high", .high)] {
                downloader.loadImage(with: ImageRequest(url: server.url("/\(name).png"), priority: priority)) { _ in finished.append(name) }
            }
            server.openGate("p")
            #expect(await eventually { finished.all.count == 4 })
            #expect(finished.all == ["blocker", "high", "normal", "low"])
        }
    }

    @Test("decoding inside the operation gives the same thumbnails as the separate decode queue")
    func decodeModesAgree() async throws {
        try await withServer { server in
            var digests: [ImageDownloader.DecodeMode: [String]] = [:]
            for index in 0..<6 { try registerAvatar(server, at: "/mode/\(index).jpg", side: 150 + index * 40, seed: UInt64(index), png: index % 2 == 0) }
            for mode in ImageDownloader.DecodeMode.allCases {
                let downloader = try makeDownloader(concurrency: 2, decodeMode: mode)
                defer { downloader.invalidate() }
                var list: [String] = []
                for index in 0..<6 {
                    let response = try await downloader.image(for: ImageRequest(url: server.url("/mode/\(index).jpg"), spec: .avatar(48, shape: .circle)))
                    #expect(response.image.width == 48)
                    list.append(ContentDigest.fnv1a64(response.data))
                }
                digests[mode] = list
            }
            #expect(digests[.separateQueue] == digests[.insideOperation])
        }
    }
}
