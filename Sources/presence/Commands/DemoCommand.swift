import ArgumentParser
import Foundation
import Presence
import PresenceFixtures

/// `presence demo`: the main job on an embedded world — serial, then concurrent — with a
/// comparison, the thumbnails and a contact sheet.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Fetch a generated follower list from the built-in avatar server, serially and then concurrently.",
        discussion: "Writes the thumbnails, reports and a contact sheet under --out, and prints a comparison."
    )

    @Option(help: "Followers in the generated list.")
    var followers: Int = 300

    @Option(help: "Time to first byte for every avatar, in milliseconds.")
    var latency: Int = 20

    @Option(help: "Percentage of entries that fail (fault routes and malformed fields).")
    var faults: Int = 4

    @Option(name: [.customShort("n"), .long], help: "Downloads at once in the concurrent run.")
    var concurrency: Int = 8

    @Option(name: .shortAndLong, help: "Folder for the results.")
    var out: String = "presence-demo"

    @Option(help: "Largest generated avatar side, 48-1600.")
    var largestAvatar: Int = 1600

    @OptionGroup var thumbnail: ThumbnailOptions

    func validate() throws {
        guard followers >= 1 else { throw ValidationError("--followers must be at least 1.") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1.") }
        guard latency >= 0, (0...100).contains(faults) else { throw ValidationError("--latency ≥ 0 and --faults 0-100.") }
        guard (48...1600).contains(largestAvatar) else { throw ValidationError("--largest-avatar must be between 48 and 1600.") }
    }

    func run() async throws {
        try await FixtureServer.withServer { server in try await demo(on: server) }
    }

    private func demo(on server: FixtureServer) async throws {
        let root = URL(fileURLWithPath: out)
        var options = FollowerWorld.Options()
        options.count = followers
        options.latencyMilliseconds = latency
        options.faultPercent = faults
        options.hostileNamePercent = 3
        options.seed = 7
        options.maximumSide = largestAvatar
        let world = FollowerWorld(server: server, options: options)
        Console.info("Avatar server on \(server.baseURL.absoluteString): \(followers) followers, \(latency) ms latency, \(faults)% faults.")
        Console.info("Generating avatars…")
        world.warmUp()
        let list = try await ListLoader.load(world.listURL.absoluteString, timeout: 30)

        var runs: [(label: String, concurrency: Int, report: FetchReport)] = []
        for (label, limit) in [("serial", 1), ("concurrent", concurrency)] {
            var configuration = ImageDownloader.Configuration()
            configuration.maximumConcurrentDownloads = limit
            configuration.callbackQueue = .global()
            let downloader = try ImageDownloader(configuration: configuration)
            let fetcher = FollowerAvatarFetcher(downloader: downloader, spec: thumbnail.spec())
            let bar = ProgressBar(title: String(label.padding(toLength: 10, withPad: " ", startingAt: 0)), total: list.entries.count)
            let folder = root.appendingPathComponent(label)
            server.resetStats()
            let report: FetchReport
            do {
                report = try await fetcher.run(list.entries, into: folder) { bar.update(done: $0.done, failed: $0.failed) }
            } catch {
                throw CommandFailure(message: error.description)
            }
            bar.finish()
            downloader.invalidate()
            try report.write(to: folder.appendingPathComponent("report.json"))
            Console.info("  \(label): at most \(server.stats.maxInFlight) request(s) in flight at the server")
            runs.append((label, limit, report))
        }

        let serialTime = runs[0].report.durationSeconds
        Console.out("")
        Console.out(Format.table(
            ["run", "downloads at once", "time", "images/s", "ok", "failed", "speed-up"],
            runs.map { run in
                [run.label, "\(run.concurrency)", Format.duration(run.report.durationSeconds), Format.rate(run.report.imagesPerSecond),
                 "\(run.report.totals.ok)", "\(run.report.totals.failed)",
                 String(format: "%.1f×", serialTime / max(run.report.durationSeconds, 1e-9))]
            }
        ))
        let sheetURL = root.appendingPathComponent("contact-sheet.png")
        let concurrent = runs[1].report
        try AtomicFile.write(try ContactSheet.make(report: concurrent, folder: root.appendingPathComponent("concurrent")), to: sheetURL)
        let failures = concurrent.entries.filter { $0.outcome == .failed }
        if !failures.isEmpty {
            Console.out("\nFailed entries (expected: the world includes \(faults)% faults):")
            for entry in failures.prefix(8) { Console.out("  #\(entry.index + 1): \(entry.reason ?? "")") }
            if failures.count > 8 { Console.out("  … \(failures.count - 8) more in the reports") }
        }
        Console.out("\nThumbnails:    \(root.appendingPathComponent("serial").path)/ and \(root.appendingPathComponent("concurrent").path)/")
        Console.out("Reports:       report.json in each")
        Console.out("Contact sheet: \(sheetURL.path)")
    }
}
