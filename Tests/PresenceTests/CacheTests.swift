import Foundation
@testable import Presence
import PresenceFixtures
import Testing

@Suite("Memory and disk caches, HTTP semantics, offline")
struct CacheTests {
    @Test("memory cache is strict LRU within its cost limit and skips oversized entries")
    func memoryLRU() {
        let cache = MemoryCache<String, Int>(costLimit: 100, entryCostLimit: 60)
        cache.insert(1, for: "a", cost: 40)
        cache.insert(2, for: "b", cost: 40)
        #expect(cache.value(for: "a") == 1)  // a is now the most recent
        cache.insert(3, for: "c", cost: 40)  // evicts b, the least recent
        #expect(cache.value(for: "b") == nil)
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.totalCost == 80)
        cache.insert(4, for: "huge", cost: 61)
        #expect(cache.value(for: "huge") == nil)
        cache.insert(5, for: "a", cost: 10)
        #expect(cache.totalCost == 50)
        #expect(cache.value(for: "a") == 5)
    }

    @Test("memory cache is safe under concurrent use")
    func memoryConcurrency() async {
        let cache = MemoryCache<Int, Int>(costLimit: 1000, entryCostLimit: 10)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<2000 {
                        cache.insert(index, for: (index * 31 + worker) % 300, cost: 1 + index % 9)
                        _ = cache.value(for: index % 300)
                    }
                }
            }
        }
        #expect(cache.totalCost <= 1000)
        #expect(cache.keysByRecency.count == cache.count)
    }

    @Test("disk cache: survives restarts, trims LRU to its size, drops corrupt and partial entries")
    func diskCache() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let metadata = CacheMetadata(url: "", entityTag: "\"x\"", lastModified: nil, maxAge: 60, mustRevalidate: false,
                                     storedAt: Date(), bodyLength: 0, bodyDigest: "")
        do {
            let cache = try DiskCache(directory: folder, sizeLimit: 10_000)
            try cache.store(Data(repeating: 1, count: 3000), metadata: metadata, for: "one")
            try cache.store(Data(repeating: 2, count: 3000), metadata: metadata, for: "two")
        }
        let reopened = try DiskCache(directory: folder, sizeLimit: 10_000)
        #expect(reopened.count == 2)
        #expect(reopened.entry(for: "one")?.data == Data(repeating: 1, count: 3000))
        try reopened.store(Data(repeating: 3, count: 3000), metadata: metadata, for: "three")
        try reopened.store(Data(repeating: 4, count: 3000), metadata: metadata, for: "four")  // over 10 kB: "two" goes
        #expect(reopened.entry(for: "two") == nil)
        #expect(reopened.entry(for: "one") != nil)
        #expect(reopened.totalSize <= 10_000)

        // Truncate an entry on disk: it is detected, deleted and not served.
        let file = reopened.fileURL(for: "one")
        let bytes = try Data(contentsOf: file)
        try bytes.prefix(bytes.count - 100).write(to: file)
        #expect(reopened.entry(for: "one") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // Garbage in place of an entry.
        try Data("garbage".utf8).write(to: reopened.fileURL(for: "three"))
        #expect(reopened.entry(for: "three") == nil)
        // Leftover temporary files from a crash are cleaned on open.
        try Data("half".utf8).write(to: folder.appendingPathComponent("\(AtomicFile.temporaryPrefix)crashed"))
        _ = try DiskCache(directory: folder)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(AtomicFile.temporaryPrefix)crashed").path))
    }

    @Test("a second run makes no requests while entries are fresh")
    func freshEntriesNeedNoRequest() async throws {
        try await withServer { server in
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            for index in 0..<5 { try registerAvatar(server, at: "/fresh/\(index).png", seed: UInt64(index), cacheControl: "max-age=600") }
            let first = try makeDownloader(cacheDirectory: folder)
            for index in 0..<5 { _ = try await first.image(for: ImageRequest(url: server.url("/fresh/\(index).png"), spec: .avatar(48))) }
            first.invalidate()
            server.resetStats()
            let second = try makeDownloader(cacheDirectory: folder)
            defer { second.invalidate() }
            for index in 0..<5 {
                let response = try await second.image(for: ImageRequest(url: server.url("/fresh/\(index).png"), spec: .avatar(48)))
                #expect(response.source == .diskCache)
            }
            #expect(server.stats.requestsServed == 0)
        }
    }

    @Test("stale entries are revalidated: only 304s, and the entry is refreshed")
    func staleEntriesRevalidate() async throws {
        try await withServer { server in
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            for index in 0..<5 { try registerAvatar(server, at: "/stale/\(index).png", seed: UInt64(index), cacheControl: "no-cache") }
            let first = try makeDownloader(cacheDirectory: folder)
            for index in 0..<5 { _ = try await first.image(for: ImageRequest(url: server.url("/stale/\(index).png"))) }
            first.invalidate()
            server.resetStats()
            let second = try makeDownloader(cacheDirectory: folder)
            defer { second.invalidate() }
            for index in 0..<5 {
                let response = try await second.image(for: ImageRequest(url: server.url("/stale/\(index).png")))
                #expect(response.source == .revalidated)
            }
            #expect(await eventually { server.stats.notModifiedResponses == 5 })
            #expect(server.stats.requestsServed == 5)
        }
    }

    @Test("offline mode serves from disk with the network down, and says so when nothing is cached")
    func offline() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var url: URL!
        try await withServer { server in
            url = try registerAvatar(server, at: "/offline.png", cacheControl: "max-age=1")
            let downloader = try makeDownloader(cacheDirectory: folder)
            _ = try await downloader.image(for: ImageRequest(url: url))
            downloader.invalidate()
        }
        let downloader = try makeDownloader(cacheDirectory: folder)
        defer { downloader.invalidate() }
        let response = try await downloader.image(for: ImageRequest(url: url, spec: .avatar(32), cachePolicy: .returnCacheDataDontLoad))
        #expect(response.source == .diskCache)
        #expect(response.image.width == 32)
        let missing = URL(string: url.absoluteString + "?other")!
        await #expect(throws: ImageLoadingError.notCached(missing)) {
            _ = try await downloader.image(for: ImageRequest(url: missing, cachePolicy: .returnCacheDataDontLoad))
        }
    }

    @Test("when the network fails, a stale entry is served and flagged stale")
    func staleFallback() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var url: URL!
        try await withServer { server in
            url = try registerAvatar(server, at: "/fallback.png", cacheControl: "no-cache")
            let downloader = try makeDownloader(cacheDirectory: folder)
            _ = try await downloader.image(for: ImageRequest(url: url))
            downloader.invalidate()
        }
        // The server is gone: connections are refused.
        let downloader = try makeDownloader(cacheDirectory: folder) { $0.retryPolicy = .none }
        defer { downloader.invalidate() }
        let response = try await downloader.image(for: ImageRequest(url: url, spec: .avatar(40)))
        #expect(response.isStale)
        #expect(response.source == .diskCache)
    }

    @Test("a cache file truncated on disk is refetched, not served")
    func truncatedCacheFileRefetched() async throws {
        try await withServer { server in
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = try registerAvatar(server, at: "/cut.png", cacheControl: "max-age=600")
            let first = try makeDownloader(cacheDirectory: folder)
            _ = try await first.image(for: ImageRequest(url: url))
            first.invalidate()
            let file = try #require(first.diskCache?.fileURL(for: url.absoluteString))
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count / 2).write(to: file)
            server.resetStats()
            let second = try makeDownloader(cacheDirectory: folder)
            defer { second.invalidate() }
            let response = try await second.image(for: ImageRequest(url: url, spec: .avatar(40)))
            #expect(response.source == .network)
            #expect(server.stats.requestsServed == 1)
        }
    }

    @Test("the memory cache answers repeated requests without touching the network")
    func memoryCacheHit() async throws {
        try await withServer { server in
            let url = try registerAvatar(server, at: "/memory.png")
            let downloader = try makeDownloader()
            defer { downloader.invalidate() }
            let first = try await downloader.image(for: ImageRequest(url: url, spec: .avatar(48)))
            let second = try await downloader.image(for: ImageRequest(url: url, spec: .avatar(48)))
            #expect(first.source == .network && second.source == .memoryCache)
            #expect(first.data == second.data)
            #expect(server.stats.requestsServed == 1)
        }
    }
}
