import Foundation
import Presence
import PresenceFixtures
import Testing

@Suite("Bulk follower-list fetching")
struct BulkFetchTests {
    @Test("1,000 entries with 5% bad: exactly those fail, every other file is a valid thumbnail, nothing outside the folder")
    func thousandEntries() async throws {
        try await withServer { server in
            var options = FollowerWorld.Options()
            options.count = 1000
            options.faultPercent = 5
            options.hostileNamePercent = 5
            options.maximumSide = 200
            options.seed = 42
            let world = FollowerWorld(server: server, options: options)
            let expectedFailures = world.expectedFailures
            #expect(expectedFailures.count > 20 && expectedFailures.count < 90)

            let (data, _) = try await Session.shared.data(for: Request(url: world.listURL))
            let list = try FollowerList.parse(data)
            #expect(list.entries.count == 1000)

            let parent = temporaryFolder("presence-bulk")
            defer { try? FileManager.default.removeItem(at: parent) }
            let output = parent.appendingPathComponent("out")
            let downloader = try makeDownloader(concurrency: 8) { $0.retryPolicy.maximumRetries = 1 }
            defer { downloader.invalidate() }
            let fetcher = FollowerAvatarFetcher(downloader: downloader, spec: .avatar(48))
            let progress = Recorder<Int>()
            let report = try await fetcher.run(list.entries, into: output) { progress.append($0.done) }

            #expect(report.entries.count == 1000)
            let failed = Set(report.entries.filter { $0.outcome == .failed }.map(\.index))
            #expect(failed == expectedFailures, "unexpected: \(failed.subtracting(expectedFailures).sorted().prefix(5)), missing: \(expectedFailures.subtracting(failed).sorted().prefix(5))")
            #expect(report.totals.failed == expectedFailures.count)
            #expect(report.totals.ok == 1000 - expectedFailures.count)
            #expect(report.entries.filter { $0.outcome == .failed }.allSatisfy { ($0.reason ?? "").isEmpty == false })
            #expect(progress.all.count == 1000 && progress.all.last == 1000)

            // Every written file is a valid 48×48 thumbnail, and nothing else was written anywhere.
            let written = try FileManager.default.contentsOfDirectory(atPath: output.path)
            #expect(written.count == 1000 - expectedFailures.count)
            #expect(Set(written) == Set(report.entries.compactMap(\.file)))
            for name in written {
                #expect(!name.hasPrefix(".") && !name.contains("/"))
                let image = try ImageDecoder().decode(Data(contentsOf: output.appendingPathComponent(name)))
                #expect(image.width == 48 && image.height == 48)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["out"])
        }
    }

    @Test("the report is written atomically as JSON and records every entry")
    func reportJSON() async throws {
        try await withServer { server in
            var options = FollowerWorld.Options()
            options.count = 30
            options.faultPercent = 20
            options.maximumSide = 73
            let world = FollowerWorld(server: server, options: options)
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let downloader = try makeDownloader(concurrency: 4) { $0.retryPolicy = .none }
            defer { downloader.invalidate() }
            let list = try FollowerList.parse(world.twitterV2JSON())
            let report = try await FollowerAvatarFetcher(downloader: downloader, spec: .avatar(32)).run(list.entries, into: folder)
            let reportURL = folder.appendingPathComponent("report.json")
            try report.write(to: reportURL)
            let decoded = try JSONSerialization.jsonObject(with: Data(contentsOf: reportURL)) as? [String: Any]
            let entries = try #require(decoded?["entries"] as? [[String: Any]])
            #expect(entries.count == 30)
            #expect(entries.allSatisfy { ["ok", "cached", "revalidated", "failed"].contains($0["outcome"] as? String ?? "") })
            let totals = try #require(decoded?["totals"] as? [String: Int])
            #expect(totals["total"] == 30)
            #expect(totals["failed"] == world.expectedFailures.count)
        }
    }

    @Test("re-running with the cache serves from cache")
    func rerunFromCache() async throws {
        try await withServer { server in
            var options = FollowerWorld.Options()
            options.count = 20
            options.maximumSide = 73
            let world = FollowerWorld(server: server, options: options)
            let cache = temporaryFolder()
            let output = temporaryFolder()
            defer {
                try? FileManager.default.removeItem(at: cache)
                try? FileManager.default.removeItem(at: output)
            }
            let entries = try FollowerList.parse(world.urlList()).entries
            for run in 0..<2 {
                let downloader = try makeDownloader(concurrency: 4, cacheDirectory: cache)
                server.resetStats()
                let report = try await FollowerAvatarFetcher(downloader: downloader, spec: .avatar(32)).run(entries, into: output)
                downloader.invalidate()
                if run == 0 {
                    #expect(report.totals.ok == 20)
                } else {
                    #expect(report.totals.cached == 20)
                    #expect(server.stats.requestsServed == 0)
                }
            }
        }
    }

    @Test("an unwritable output folder is one clear error")
    func unwritableOutput() async throws {
        let downloader = try makeDownloader()
        defer { downloader.invalidate() }
        let fetcher = FollowerAvatarFetcher(downloader: downloader, spec: .avatar(32))
        await #expect(throws: FetchError.self) {
            _ = try await fetcher.run([FollowerEntry(index: 0)], into: URL(fileURLWithPath: "/proc/presence-cannot-write"))
        }
    }
}
