import Foundation
import PresenceFixtures
import PresenceImaging
import Testing

@Suite("presence fetch")
struct FetchCommandTests {
    @Test("a clean list: every thumbnail written, report.json complete, exit 0")
    func cleanList() async throws {
        try await FixtureServer.withServer { server in
            let world = world(server, count: 30)
            let out = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: out) }
            let run = try await presence(["fetch", world.listURL.absoluteString, "--out", out.path, "--size", "48"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("Thumbnails: \(out.path)"))
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
            #expect(files.count == 31)
            let report = try jsonObject(String(decoding: try Data(contentsOf: out.appendingPathComponent("report.json")), as: UTF8.self))
            let entries = try #require(report["entries"] as? [[String: Any]])
            #expect(entries.count == 30)
            for entry in entries {
                #expect(entry["outcome"] as? String == "ok")
                for key in ["id", "screenName", "url", "bytesReceived", "sourceWidth", "sourceHeight", "file", "milliseconds"] {
                    #expect(entry[key] != nil, "report entries carry \(key)")
                }
                let file = try #require(entry["file"] as? String)
                let image = try ImageDecoder().decode(Data(contentsOf: out.appendingPathComponent(file)))
                #expect(image.width == 48 && image.height == 48)
            }
        }
    }

    @Test("faults and hostile names: exit 1, exactly the bad entries failed, nothing outside the folder")
    func faultyList() async throws {
        try await FixtureServer.withServer { server in
            let world = world(server, count: 80, faults: 15, hostile: 20)
            let parent = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: parent) }
            let out = parent.appendingPathComponent("avatars")
            let listFile = parent.appendingPathComponent("followers.json")
            try world.twitterV1JSON().write(to: listFile)
            let run = try await presence(["fetch", listFile.path, "--out", out.path, "--concurrency", "4", "--retries", "0", "--json"])
            #expect(run.status == 1)
            let report = try jsonObject(run.stdout)
            let entries = try #require(report["entries"] as? [[String: Any]])
            let failed = Set(entries.filter { $0["outcome"] as? String == "failed" }.compactMap { $0["index"] as? Int })
            #expect(failed == world.expectedFailures)
            #expect(!run.stderr.contains("\u{1B}["), "no escape codes off a terminal")
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: parent.path)) == ["avatars", "followers.json"])
            for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
                #expect(!name.hasPrefix(".") && name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 32 })
            }
        }
    }

    @Test("--serial is serial at the server; --concurrency 4 reaches 4")
    func serialAtTheServer() async throws {
        try await FixtureServer.withServer { server in
            let world = world(server, count: 24, latency: 30)
            for (flags, expected) in [(["--serial"], 1), (["--concurrency", "4"], 4)] {
                let out = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: out) }
                server.resetStats()
                let run = try await presence(["fetch", world.listURL.absoluteString, "--out", out.path, "--size", "32"] + flags)
                #expect(run.status == 0)
                #expect(server.stats.maxInFlight == expected, "\(flags)")
            }
        }
    }

    @Test("re-running with --cache is served from the cache and says so")
    func cacheRerun() async throws {
        try await FixtureServer.withServer { server in
            let world = world(server, count: 12)
            let cache = temporaryFolder(), out = temporaryFolder()
            defer {
                try? FileManager.default.removeItem(at: cache)
                try? FileManager.default.removeItem(at: out)
            }
            let arguments = ["fetch", world.listURL.absoluteString, "--out", out.path, "--cache", cache.path]
            #expect(try await presence(arguments).status == 0)
            server.resetStats()
            let second = try await presence(arguments)
            #expect(second.status == 0)
            #expect(second.stdout.contains("12 served from the cache."))
            #expect(server.stats.requestsServed == 1, "only the list itself")
            let offline = try await presence(["fetch", world.listURL.absoluteString, "--out", out.path, "--cache", cache.path, "--offline", "--json"])
            #expect(offline.status == 0)
        }
    }

    @Test("the list can come from standard input, as v2 JSON or plain URLs")
    func standardInput() async throws {
        try await FixtureServer.withServer { server in
            let world = world(server, count: 5)
            for list in [world.twitterV2JSON(), world.urlList()] {
                let out = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: out) }
                let run = try await presence(["fetch", "-", "--out", out.path, "--format", "jpeg"], input: list)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".jpg") }.count == 5)
            }
        }
    }

    @Test("Ctrl-C finishes writes, writes the report of what was done, and exits 130")
    func interrupted() async throws {
        try await FixtureServer.withServer { server in
            let world = world(server, count: 40, latency: 150)
            let out = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: out) }
            let run = try await presence(["fetch", world.listURL.absoluteString, "--out", out.path]) {
                server.stats.requestsServed >= 6  // the list and at least five avatars
            }
            #expect(run.status == 130, "\(run.stderr)")
            let report = try jsonObject(String(decoding: try Data(contentsOf: out.appendingPathComponent("report.json")), as: UTF8.self))
            #expect(report["wasCancelled"] as? Bool == true)
            let entries = try #require(report["entries"] as? [[String: Any]])
            #expect(entries.count == 40, "every entry is recorded")
            let done = entries.filter { $0["outcome"] as? String == "ok" }
            #expect(!done.isEmpty && done.count < 40)
            #expect(entries.filter { $0["outcome"] as? String == "failed" }.allSatisfy { $0["reason"] as? String == "cancelled" })
            let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "report.json" }
            #expect(written.count == done.count, "no half-written files: \(written.filter { $0.hasPrefix(".") })")
        }
    }

    @Test("clear one-line errors and exit 2 for unreadable input and bad options")
    func usageErrors() async throws {
        let parent = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let bad = parent.appendingPathComponent("bad.json")
        try Data("{\n  \"users\": [\n    {\"id_str\": \"1\",, }\n  ]\n}".utf8).write(to: bad)
        let good = parent.appendingPathComponent("good.txt")
        try Data("https://127.0.0.1:1/a.png\n".utf8).write(to: good)
        let cases: [([String], String)] = [
            (["fetch", parent.appendingPathComponent("missing.json").path, "--out", parent.path], "cannot read"),
            (["fetch", bad.path, "--out", parent.path], "malformed JSON at line 3, column 20"),
            (["fetch", good.path, "--out", "/proc/presence-cannot-write"], "cannot write to /proc/presence-cannot-write"),
            (["fetch", good.path, "--out", parent.path, "--size", "0"], "--size must be between 1 and 4096"),
            (["fetch", good.path, "--out", parent.path, "--shape", "hexagon"], "hexagon"),
            (["fetch", good.path, "--out", parent.path, "--serial", "--concurrency", "2"], "cannot be combined"),
        ]
        for (arguments, message) in cases {
            let run = try await presence(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}
