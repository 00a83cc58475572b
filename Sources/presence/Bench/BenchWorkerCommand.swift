import ArgumentParser
import Foundation
import Presence

/// `presence bench-worker`: runs one benchmark measurement in its own process (so CPU time,
/// peak memory and threads belong to that strategy alone) and prints it as JSON. Used by `bench`.
struct BenchWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-worker",
        abstract: "Run one benchmark measurement and print it as JSON (used by `presence bench`).",
        shouldDisplay: false
    )

    @Option(help: "queues, transfer or thumbnails.") var suite: String
    @Option(help: "The strategy or engine to run.") var strategy: String
    @Option(help: "Downloads (or connections) at once.") var width: Int = 1
    @Option(help: "A file with one URL a line (queues, transfer).") var urls: String?
    @Option(help: "The thumbnail corpus folder (thumbnails).") var corpus: String?
    @Option(help: "Scenario label for the report.") var scenario: String = ""
    @Option(help: "Thumbnail edge in pixels.") var size: Int = 96
    @Option(help: "Minimum seconds of thumbnailing (thumbnails).") var minimumSeconds: Double = 2

    func run() async throws {
        let measurement: BenchMeasurement
        switch suite {
        case "thumbnails":
            guard let corpus else { throw ValidationError("--corpus is required for thumbnails.") }
            measurement = try ThumbnailSuite.run(folder: URL(fileURLWithPath: corpus), size: size, minimumSeconds: minimumSeconds)
        case "transfer":
            measurement = await TransferSuite.run(engine: strategy, urls: try loadURLs(), connections: width, scenario: scenario)
        default:
            guard let chosen = QueueStrategy(rawValue: strategy) else { throw ValidationError("Unknown strategy \(strategy).") }
            measurement = await chosen.run(urls: try loadURLs(), width: width, spec: .avatar(size), scenario: scenario)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Console.out(String(decoding: try encoder.encode(measurement), as: UTF8.self))
    }

    private func loadURLs() throws -> [URL] {
        guard let urls, let text = try? String(contentsOfFile: urls, encoding: .utf8) else {
            throw ValidationError("--urls must name a readable file.")
        }
        return text.split(separator: "\n").compactMap { URL(string: String($0)) }
    }
}
