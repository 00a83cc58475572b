import Foundation
import PresenceFixtures
import PresenceImaging
import PresenceTransfer
import Testing

let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpora")

@Suite("presence check, thumb, serve, get, demo")
struct OtherCommandTests {
    @Test("check: sound files exit 0; any corrupt or missing file exits 1 and says why")
    func check() async throws {
        let good = corpora.appendingPathComponent("pngsuite/basi6a08.png").path
        let jpeg = corpora.appendingPathComponent("libjpeg-turbo-testimages/testimgp.jpg").path
        let sound = try await presence(["check", good, jpeg])
        #expect(sound.status == 0)
        #expect(sound.stdout.contains("PNG 32×32, RGBA, 8-bit, alpha, interlaced"))
        #expect(sound.stdout.contains("JPEG 227×149, YCbCr, 8-bit, progressive"))
        let corrupt = corpora.appendingPathComponent("pngsuite/xcsn0g01.png").path
        let gif = try #require(FileManager.default.enumerator(atPath: corpora.appendingPathComponent("animated-gif-webp/gif").path)?
            .compactMap { $0 as? String }.first { $0.hasSuffix(".gif") })
        let mixed = try await presence(["check", good, corrupt, corpora.appendingPathComponent("animated-gif-webp/gif/\(gif)").path, "missing.png"])
        #expect(mixed.status == 1)
        #expect(mixed.stdout.contains("xcsn0g01.png: refused: corrupt: IDAT: CRC error"))
        #expect(mixed.stdout.contains("refused: GIF images are not supported"))
        #expect(mixed.stdout.contains("missing.png: no such file"))
        let json = try await presence(["check", corrupt, "--json"])
        #expect(try jsonObject(json.stdout)["sound"] as? Bool == false)
    }

    @Test("thumb: one thumbnail has the asked size and format; many report images/s")
    func thumb() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = corpora.appendingPathComponent("exif-orientation-examples/Portrait_6.jpg").path
        let output = folder.appendingPathComponent("avatar.jpg").path
        let single = try await presence(["thumb", source, output, "--size", "73", "--shape", "circle"])
        #expect(single.status == 0, "\(single.stderr)")
        let made = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(ImageFormat.sniff(made) == .jpeg)
        let image = try ImageDecoder().decode(made)
        #expect(image.width == 73 && image.height == 73)

        let inputs = ["basn2c08.png", "basn6a08.png", "tbbn3p08.png"].map { corpora.appendingPathComponent("pngsuite/\($0)").path }
        let many = try await presence(["thumb"] + inputs + ["--out", folder.appendingPathComponent("many").path, "--jobs", "1", "--size", "20"])
        #expect(many.status == 0)
        #expect(many.stdout.contains("3 thumbnails"))
        #expect(many.stdout.contains("images/s"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("many").path)
        #expect(files.count == 3)
        let missing = try await presence(["thumb", "nope.png", output])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read nope.png"))
    }

    @Test("serve: prints the list URL, serves it, and stops cleanly on Ctrl-C")
    func serve() async throws {
        let process = Process()
        process.executableURL = presenceExecutable
        process.arguments = ["serve", "--followers", "7"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("Press Ctrl-C"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(text.split(separator: "\n").first { $0.contains("v1.1 list:") })
        let url = try #require(URL(string: String(line.split(separator: " ").last!)))
        let (data, _) = try await Session.shared.data(for: Request(url: url))
        let users = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["users"] as? [Any])
        #expect(users.count == 7)
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test("get: a huge body is stopped at the limit without the process growing")
    func getHugeBody() async throws {
        try await FixtureServer.withServer { server in
            let url = server.url("/fault/huge", ["size": "\(1 << 30)", "chunked": "1"]).absoluteString
            let run = try await presence(["get", url, "--max-bytes", "\(8 << 20)", "--json"])
            #expect(run.status == 1)
            let outcome = try jsonObject(run.stdout)
            #expect((outcome["error"] as? String)?.contains("response larger than the limit of 8388608 bytes") == true)
            let peak = try #require(outcome["peakResidentBytes"] as? Int)
            #expect(peak > 0 && peak < 64 << 20, "peak RSS \(peak >> 20) MiB while refusing a 1 GiB body")
            #expect(await waitUntil { server.stats.responsesAbandonedByClient == 1 })

            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("body.bin")
            let saved = try await presence(["get", server.url("/bytes/300000", ["seed": "4"]).absoluteString, "--output", file.path])
            #expect(saved.status == 0)
            #expect(try Data(contentsOf: file) == Data(PatternBytes.make(count: 300_000, seed: 4)))
        }
    }

    @Test("demo: runs to completion and produces the contact sheet and both runs' reports")
    func demo() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let started = Date()
        let run = try await presence(["demo", "--followers", "60", "--largest-avatar", "200", "--out", folder.path], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(run.stdout.contains("serial") && run.stdout.contains("concurrent") && run.stdout.contains("speed-up"))
        let sheet = try ImageDecoder().decode(Data(contentsOf: folder.appendingPathComponent("contact-sheet.png")))
        #expect(sheet.width == 20 * 68 + 4 && sheet.height == 3 * 68 + 4)
        for label in ["serial", "concurrent"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(label)/report.json").path))
        }
    }
}
