import ArgumentParser
import Foundation
import Logging
import Presence
import PresenceLocking

/// `presence fetch`: bulk-download a follower list's avatars as thumbnails, with a report.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Bulk-download the avatars of a follower list as thumbnails.",
        discussion: """
        LIST is Twitter API v1.1 JSON (followers/list, users/lookup), v2 JSON, or one URL a line. \
        Writes one thumbnail per entry into --out and a report of every entry's outcome (ok, cached, \
        revalidated, failed and why). Exit status 0 when all succeeded, 1 when some failed, 2 for \
        usage errors or an unreadable list, 130 when interrupted (the report is still written).
        """
    )

    @Argument(help: "The follower list: a file, - for standard input, or an http(s) URL.")
    var list: String

    @Option(name: .shortAndLong, help: "Folder for the thumbnails and report.json (created if missing).")
    var out: String

    @Option(name: [.customShort("n"), .long], help: "Downloads at once. Default: 1 (serial).")
    var concurrency: Int?

    @Flag(help: "One download at a time (the default; clashes with --concurrency).")
    var serial = false

    @OptionGroup var thumbnail: ThumbnailOptions

    @Option(help: "Avatar size to ask for: as-listed, normal (48), bigger (73), 200x200, 400x400 or original.")
    var variant: AvatarVariant = .asListed

    @Option(help: "Disk cache folder. Re-runs serve fresh entries from it and revalidate stale ones.")
    var cache: String?

    @Flag(help: "Use only the cache (--cache); never touch the network.")
    var offline = false

    @Option(help: "Retries of transient failures (timeouts, resets, 5xx, 408, 429), 0-10.")
    var retries: Int = 2

    @Option(help: "Seconds without data before a download fails.")
    var timeout: Double = 30

    @Option(help: "Where to write the JSON report. Default: OUT/report.json.")
    var report: String?

    @Flag(help: "Print the report as JSON on standard output, and no progress bar.")
    var json = false

    @Option(help: "Order of waiting downloads: fifo or lifo.")
    var order: DownloadOrder = .fifo

    @Option(help: "Where decoding happens: separate (a decode queue) or inside (the download operation).")
    var decode: DecodeOption = .separate

    @OptionGroup var diagnostics: DiagnosticOptions

    func validate() throws {
        if serial, concurrency != nil { throw ValidationError("--serial and --concurrency cannot be combined.") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1.") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be between 0 and 10.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        if offline, cache == nil { throw ValidationError("--offline needs --cache.") }
    }

    func run() async throws {
        let logger = Diagnostics.logger(verbose: diagnostics.verbose)
        let followers = try await ListLoader.load(list, timeout: timeout)
        logger.debug("read \(followers.entries.count) entries (\(followers.format.rawValue)) from \(list)")

        var configuration = ImageDownloader.Configuration()
        configuration.maximumConcurrentDownloads = concurrency ?? 1
        configuration.order = order
        configuration.decodeMode = decode.mode
        configuration.retryPolicy.maximumRetries = retries
        configuration.session.timeoutIntervalForRequest = timeout
        configuration.diskCacheDirectory = cache.map { URL(fileURLWithPath: $0) }
        configuration.callbackQueue = .global()
        let downloader: ImageDownloader
        do {
            downloader = try ImageDownloader(configuration: configuration)
        } catch {
            throw CommandFailure(message: "cannot open the cache \(cache ?? ""): \(error.localizedDescription)")
        }
        defer { downloader.invalidate() }

        let spec = thumbnail.spec()
        let fetcher = FollowerAvatarFetcher(downloader: downloader, spec: spec, variant: variant,
                                            cachePolicy: offline ? .returnCacheDataDontLoad : .useProtocolCachePolicy)
        let bar = ProgressBar(title: "fetch", total: followers.entries.count, enabled: Console.stderrIsTerminal && !json)
        let output = URL(fileURLWithPath: out)
        let work = Task {
            try await fetcher.run(followers.entries, into: output) { progress in
                bar.update(done: progress.done, failed: progress.failed)
            }
        }
        let interrupted = Locked(false)
        let trap = SignalTrap { _ in
            interrupted.withLock { $0 = true }
            work.cancel()
        }
        let result: FetchReport
        do {
            result = try await work.value
        } catch let error as FetchError {
            throw CommandFailure(message: error.description)
        }
        _ = trap
        bar.finish()
        for entry in result.entries where entry.outcome == .failed {
            logger.debug("failed: \(entry.screenName ?? "#\(entry.index + 1)"): \(entry.reason ?? "")")
        }

        let reportURL = report.map { URL(fileURLWithPath: $0) } ?? output.appendingPathComponent("report.json")
        do {
            try result.write(to: reportURL)
        } catch {
            throw CommandFailure(message: "cannot write the report \(reportURL.path): \(error.localizedDescription)")
        }
        if json {
            Console.out(String(decoding: try result.jsonData(), as: UTF8.self))
        } else {
            Console.out(FetchSummary.text(for: result, title: "Fetched \(list)", output: output, report: reportURL))
        }
        if interrupted.withLock({ $0 }) || result.wasCancelled { throw ExitStatus(code: 130) }
        if result.totals.failed > 0 { throw ExitStatus(code: 1) }
    }
}

/// The human summary printed after a fetch.
enum FetchSummary {
    static func text(for report: FetchReport, title: String, output: URL?, report reportURL: URL?) -> String {
        let t = report.totals
        var lines = [title]
        lines.append(Format.table(
            ["entries", "ok", "cached", "revalidated", "failed", "time", "images/s", "received"],
            [["\(t.total)", "\(t.ok)", "\(t.cached)", "\(t.revalidated)", "\(t.failed)", Format.duration(report.durationSeconds),
              Format.rate(report.imagesPerSecond), Format.bytes(report.bytesReceived)]]
        ))
        if t.cached > 0 { lines.append("\(t.cached) served from the cache.") }
        let failures = report.entries.filter { $0.outcome == .failed }
        if !failures.isEmpty {
            lines.append("Failed:")
            for entry in failures.prefix(10) {
                lines.append("  \(entry.screenName.map { "@\($0)" } ?? "#\(entry.index + 1)"): \(entry.reason ?? "unknown")")
            }
            if failures.count > 10 { lines.append("  … and \(failures.count - 10) more (see the report)") }
        }
        if report.wasCancelled { lines.append("Interrupted: unfinished entries are recorded as cancelled.") }
        if let output { lines.append("Thumbnails: \(output.path)") }
        if let reportURL { lines.append("Report: \(reportURL.path)") }
        return lines.joined(separator: "\n")
    }
}
