import Foundation
import Presence

/// `curl --parallel --parallel-max N`: the download part of the queues suite only.
enum CurlPeer {
    static func measure(urlsFile: URL, width: Int, scenario: String, scratch: URL) async throws -> BenchMeasurement? {
        guard let curl = ["/usr/bin/curl", "/usr/local/bin/curl"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        let folder = scratch.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let urls = try String(contentsOf: urlsFile, encoding: .utf8).split(separator: "\n")
        let config = urls.enumerated().map { "url = \"\($1)\"\noutput = \"\(folder.path)/\($0)\"" }.joined(separator: "\n")
        let configURL = folder.appendingPathComponent("config")
        try Data(config.utf8).write(to: configURL)
        Console.info("  curl --parallel, N = \(width)")
        let output = try await ChildProcess.run(URL(fileURLWithPath: curl),
                                                ["--parallel", "--parallel-max", "\(width)", "--silent", "--fail", "--config", configURL.path],
                                                timeout: 600)
        let written = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).count) ?? 1
        return BenchMeasurement(
            strategy: "curl --parallel (download only)", concurrency: width, scenario: scenario, entries: urls.count, succeeded: max(0, written - 1),
            wallSeconds: output.seconds, cpuSeconds: output.childCPUSeconds, peakResidentBytes: 0, peakThreads: 0,
            latencyP50Milliseconds: 0, latencyP99Milliseconds: 0, outputDigest: "", note: "download only"
        )
    }
}

/// Pillow and pyvips on the thumbnail corpus, through the bundled script.
enum PythonPeer {
    static func measure(peer: String, corpus: URL, seconds: Double) async -> BenchRow {
        var failure = BenchMeasurement(
            strategy: peer, concurrency: 1, scenario: "thumbnails", entries: 0, succeeded: 0, wallSeconds: 0, cpuSeconds: 0,
            peakResidentBytes: 0, peakThreads: 0, latencyP50Milliseconds: 0, latencyP99Milliseconds: 0, outputDigest: "", note: nil
        )
        guard let script = Bundle.module.url(forResource: "bench_thumbnail_peers", withExtension: "py") else {
            failure.note = "peer script missing"
            return BenchRow(suite: "thumbnails", measurement: failure, isPeer: true, floor: nil)
        }
        let outcome = try? await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", script.path, corpus.path, "--peer", peer, "--min-seconds", "\(seconds)",
             "--png-level", "\(AvatarSpec.defaultPNGCompressionLevel)"],
            timeout: 900, environment: ["VIPS_CONCURRENCY": "1"]
        )
        guard let output = outcome, let line = output.stdout.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let images = object["images"] as? Int, let elapsed = object["seconds"] as? Double else {
            failure.note = "unavailable: \(outcome?.stderr.split(separator: "\n").last ?? "python3 failed")"
            return BenchRow(suite: "thumbnails", measurement: failure, isPeer: true, floor: nil)
        }
        var measurement = failure
        measurement.entries = images
        measurement.succeeded = images
        measurement.wallSeconds = elapsed
        measurement.cpuSeconds = output.childCPUSeconds
        measurement.peakResidentBytes = object["peakResidentBytes"] as? Int ?? 0
        measurement.note = (peer == "pillow" ? "draft + LANCZOS" : "thumbnail_buffer, VIPS_CONCURRENCY=1")
            + ", PNG level \(AvatarSpec.defaultPNGCompressionLevel)"
        return BenchRow(suite: "thumbnails", measurement: measurement, isPeer: true, floor: nil)
    }
}
