import ArgumentParser
import Foundation
import Presence
import PresenceFixtures

/// `presence bench`: every queue strategy × N × scenario, with peers, in one run; a table, CSV,
/// JSON and an SVG chart.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Compare queue strategies (serial and concurrent OperationQueue, GCD, TaskGroup, curl multi) with peers.",
        discussion: """
        Each measurement runs in its own process against the built-in avatar server, so CPU time, \
        peak memory and threads belong to one strategy. Every strategy's thumbnails are compared by \
        digest: the numbers are for the same work. Suites: queues (fetch + check + thumbnail a \
        list), transfer (1,000 bodies over 16 connections, vs URLSession), thumbnails (one thread, \
        vs Pillow and pyvips, installed from PyPI when missing).
        """
    )

    @Flag(help: "Small settings that finish in under two minutes on two cores.")
    var quick = false

    @Option(help: "Suites to run: queues, transfer, thumbnails (comma-separated) or all.")
    var suite: String = "all"

    @Option(help: "Entries in the generated list (default 1000; 120 with --quick).")
    var entries: Int?

    @Option(help: "Widths N to compare, comma-separated (default 1,2,4,8,16,32; 1,4,16 with --quick).")
    var widths: String?

    @Option(help: "Latencies in milliseconds, comma-separated (default 0,20,100; 0,20 with --quick).")
    var latencies: String?

    @Option(help: "Per-connection bandwidth limit in bytes per second (optional).")
    var rate: Int?

    @Option(help: "Bodies in the transfer suite (default 1000; 300 with --quick).")
    var transferBodies: Int?

    /// Which peers run beside Presence.
    enum Peers: String, ExpressibleByArgument, CaseIterable {
        case all, network, none
    }

    @Option(help: "Peers to run: all (URLSession, curl, Pillow, pyvips), network (no Python), or none.")
    var peers: Peers = .all

    private var noPeers: Bool { peers == .none }

    @Option(name: .shortAndLong, help: "Folder for results.csv, results.json and chart.svg.")
    var out: String = "presence-bench"

    @Option(help: "Seconds after which one measurement is stopped and reported as cut short.")
    var runTimeout: Double = 300

    func validate() throws {
        for value in [widths, latencies].compactMap({ $0 }) where parseList(value) == nil {
            throw ValidationError("\(value) is not a comma-separated list of numbers.")
        }
        let suites = Set(suite.split(separator: ",").map(String.init))
        guard suites.isSubset(of: ["all", "queues", "transfer", "thumbnails"]) else {
            throw ValidationError("--suite takes queues, transfer, thumbnails or all.")
        }
        if let entries, entries < 1 { throw ValidationError("--entries must be at least 1.") }
    }

    private func parseList(_ text: String) -> [Int]? {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        return values.contains(nil) || values.isEmpty ? nil : values.compactMap { $0 }.filter { $0 >= 0 }
    }

    private var suites: Set<String> {
        let named = Set(suite.split(separator: ",").map(String.init))
        return named.contains("all") ? ["queues", "transfer", "thumbnails"] : named
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let runner = WorkerRunner(timeout: runTimeout)
        var report = BenchReport()
        var latencyOf: [String: Double] = [:]
        let started = Date()

        if suites.contains("queues") {
            let widths = (self.widths.flatMap(parseList) ?? (quick ? [1, 4, 16] : [1, 2, 4, 8, 16, 32])).filter { $0 >= 1 }
            let latencies = latencies.flatMap(parseList) ?? (quick ? [0, 20] : [0, 20, 100])
            for latency in latencies {
                let scenario = "\(latency) ms" + (rate.map { " · \(Format.bytes($0))/s" } ?? "")
                latencyOf[scenario] = Double(latency)
                report.rows += try await queues(scenario: scenario, latency: latency, widths: widths, runner: runner, folder: folder)
            }
        }
        if suites.contains("transfer") {
            report.rows += try await transfer(runner: runner, folder: folder)
        }
        if suites.contains("thumbnails") {
            report.rows += try await thumbnails(runner: runner, folder: folder)
        }
        report.relateToPeers()

        for name in ["queues", "transfer", "thumbnails"] where report.rows.contains(where: { $0.suite == name }) {
            Console.out("\n\(name)\n" + report.table(for: name))
        }
        try AtomicFile.write(Data(report.csv().utf8), to: folder.appendingPathComponent("results.csv"))
        try AtomicFile.write(report.json(), to: folder.appendingPathComponent("results.json"))
        let queueRows = report.rows.filter { $0.suite == "queues" }
        if !queueRows.isEmpty {
            try AtomicFile.write(Data(BenchChart.svg(rows: queueRows, latencies: latencyOf).utf8), to: folder.appendingPathComponent("chart.svg"))
        }
        Console.out("\nFinished in \(Format.duration(Date().timeIntervalSince(started))). Results: \(folder.path)/results.csv, results.json"
            + (queueRows.isEmpty ? "" : ", chart.svg"))
        if report.rows.contains(where: { $0.sameOutput == false }) {
            Console.error("strategies produced different thumbnails; see the 'same' column")
            throw ExitStatus(code: 1)
        }
    }

    // MARK: Suites

    private func queues(scenario: String, latency: Int, widths: [Int], runner: WorkerRunner, folder: URL) async throws -> [BenchRow] {
        let count = entries ?? (quick ? 120 : 1000)
        return try await FixtureServer.withServer { server in
            var options = FollowerWorld.Options()
            options.count = count
            options.latencyMilliseconds = latency
            options.bytesPerSecond = rate
            options.seed = 2026
            if quick { options.maximumSide = 800 }
            let world = FollowerWorld(server: server, options: options)
            Console.info("queues, \(scenario): generating \(count) avatars…")
            world.warmUp()
            let urlsFile = folder.appendingPathComponent("urls-\(latency)ms.txt")
            try Data(world.users.compactMap(\.listedURL).joined(separator: "\n").utf8).write(to: urlsFile)
            let floor: (Int) -> Double? = { width in latency > 0 ? Double(count) * Double(latency) / 1000 / Double(width) : nil }
            var rows: [BenchRow] = []
            for width in widths {
                var strategies: [QueueStrategy] = [.operationQueue, .operationQueueDecodeInside]
                if width > 1 { strategies += [.gcdSemaphore, .taskGroup, .curlMulti] }
                if !noPeers { strategies.append(.urlSession) }
                for strategy in strategies {
                    Console.info("  \(strategy.rawValue), N = \(width)")
                    let measurement = try await runner.measure([
                        "--suite", "queues", "--strategy", strategy.rawValue, "--width", "\(width)",
                        "--urls", urlsFile.path, "--scenario", scenario,
                    ])
                    rows.append(BenchRow(suite: "queues", measurement: measurement, isPeer: strategy.isPeer, floor: floor(width)))
                }
                if !noPeers, let curl = try await CurlPeer.measure(urlsFile: urlsFile, width: width, scenario: scenario, scratch: folder) {
                    rows.append(BenchRow(suite: "queues", measurement: curl, isPeer: true, floor: floor(width)))
                }
            }
            // The same work: every strategy must produce the same thumbnails, byte for byte.
            let reference = rows.first { $0.outputDigest != nil && $0.succeeded == count }?.outputDigest
            for index in rows.indices where rows[index].outputDigest != nil {
                rows[index].sameOutput = reference != nil && rows[index].outputDigest == reference
            }
            return rows
        }
    }

    private func transfer(runner: WorkerRunner, folder: URL) async throws -> [BenchRow] {
        let count = transferBodies ?? (quick ? 300 : 1000)
        let latency = 50, connections = 16
        return try await FixtureServer.withServer { server in
            let urls = (0..<count).map { index in
                server.url("/bytes/\(20_000 + (index * 7919) % 130_001)", ["seed": "\(index)", "delay": "\(latency)"]).absoluteString
            }
            let urlsFile = folder.appendingPathComponent("urls-transfer.txt")
            try Data(urls.joined(separator: "\n").utf8).write(to: urlsFile)
            let scenario = "\(count) bodies · \(latency) ms · \(connections) connections"
            let floor = Double(count) * Double(latency) / 1000 / Double(connections)
            var rows: [BenchRow] = []
            for engine in noPeers ? ["presence"] : ["presence", "urlsession"] {
                Console.info("transfer: \(engine)")
                let measurement = try await runner.measure([
                    "--suite", "transfer", "--strategy", engine, "--width", "\(connections)", "--urls", urlsFile.path, "--scenario", scenario,
                ])
                rows.append(BenchRow(suite: "transfer", measurement: measurement, isPeer: engine != "presence", floor: floor))
            }
            return rows
        }
    }

    private func thumbnails(runner: WorkerRunner, folder: URL) async throws -> [BenchRow] {
        let corpus = folder.appendingPathComponent("corpus")
        try? FileManager.default.removeItem(at: corpus)
        Console.info("thumbnails: writing the corpus (400×400 and 48×48 JPEG, 400×400 RGBA PNG, 1600×1200 JPEG)…")
        try ThumbnailSuite.makeCorpus(in: corpus, perKind: quick ? 4 : 10)
        let seconds = quick ? 1.5 : 4
        var rows: [BenchRow] = []
        let ours = try await runner.measure(["--suite", "thumbnails", "--strategy", "presence", "--corpus", corpus.path, "--minimum-seconds", "\(seconds)"])
        rows.append(BenchRow(suite: "thumbnails", measurement: ours, isPeer: false, floor: nil))
        if peers == .all {
            for peer in ["pillow", "pyvips"] {
                Console.info("thumbnails: \(peer)")
                rows.append(await PythonPeer.measure(peer: peer, corpus: corpus, seconds: seconds))
            }
        }
        return rows
    }
}
