import Foundation
import PresenceLocking

/// Progress of a bulk fetch.
public struct FetchProgress: Sendable, Hashable {
    /// Entries finished (any outcome).
    public var done: Int
    /// Entries in the list.
    public var total: Int
    /// Entries failed so far.
    public var failed: Int
    /// Entries served from caches so far.
    public var cached: Int
    /// Network bytes so far.
    public var bytesReceived: Int
}

/// Why a bulk fetch could not run at all.
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The output folder cannot be created or written.
    case outputFolderUnwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .outputFolderUnwritable(path, reason): "cannot write to \(path): \(reason)"
        }
    }
}

/// Runs a whole follower list through an ``ImageDownloader``: one thumbnail per entry, written
/// atomically into the output folder under a safe unique name, and a ``FetchReport`` that records
/// every entry's outcome. A bad entry fails alone; the run goes on.
///
/// Memory stays flat whatever the list's length: only a small window of requests is outstanding,
/// and each thumbnail is written and dropped as soon as it arrives.
///
/// Thread-safe: ``run(_:into:progress:)`` may be called from any task; progress is called from
/// arbitrary threads, one call at a time.
public final class FollowerAvatarFetcher: Sendable {
    /// The downloader doing the work (its concurrency, caches and retries apply).
    public let downloader: ImageDownloader
    /// The thumbnail to make.
    public let spec: AvatarSpec
    /// Which avatar size to ask for.
    public let variant: AvatarVariant
    /// How the caches are used.
    public let cachePolicy: ImageRequest.CachePolicy

    /// Creates a fetcher.
    public init(downloader: ImageDownloader, spec: AvatarSpec, variant: AvatarVariant = .asListed,
                cachePolicy: ImageRequest.CachePolicy = .useProtocolCachePolicy) {
        self.downloader = downloader
        self.spec = spec
        self.variant = variant
        self.cachePolicy = cachePolicy
    }

    /// Fetches every entry into `directory`. Cancelling the calling task stops new requests, lets
    /// writes in progress finish, and returns a report in which unfinished entries are failed
    /// with reason "cancelled".
    public func run(
        _ entries: [FollowerEntry],
        into directory: URL,
        progress: @escaping @Sendable (FetchProgress) -> Void = { _ in }
    ) async throws(FetchError) -> FetchReport {
        try Self.prepare(directory)
        let started = Date()
        var namer = FileNamer()
        let names = entries.map { namer.name(for: $0, fileExtension: spec.output.fileExtension) }
        let window = max(8, 2 * (downloader.configuration.maximumConcurrentDownloads ?? 16))
        let tally = Locked(FetchProgress(done: 0, total: entries.count, failed: 0, cached: 0, bytesReceived: 0))
        var reports = [FetchReport.Entry?](repeating: nil, count: entries.count)

        await withTaskGroup(of: FetchReport.Entry.self) { group in
            var next = 0
            func addNext() {
                guard next < entries.count, !Task.isCancelled else { return }
                let entry = entries[next], name = names[next]
                next += 1
                group.addTask { await self.fetch(entry, fileName: name, into: directory) }
            }
            for _ in 0..<window { addNext() }
            while let report = await group.next() {
                reports[report.index] = report
                let snapshot = tally.withLock { t in
                    t.done += 1
                    if report.outcome == .failed { t.failed += 1 }
                    if report.outcome == .cached { t.cached += 1 }
                    t.bytesReceived += report.bytesReceived
                    return t
                }
                progress(snapshot)
                addNext()
            }
        }
        let wasCancelled = reports.contains { $0 == nil }
        let finished = entries.enumerated().map { index, entry in
            reports[index] ?? Self.failure(entry, reason: "cancelled", milliseconds: 0)
        }
        return FetchReport(
            entries: finished, startedAt: started, duration: Date().timeIntervalSince(started),
            concurrency: downloader.configuration.maximumConcurrentDownloads, spec: spec.identifier,
            wasCancelled: wasCancelled || Task.isCancelled
        )
    }

    private static func prepare(_ directory: URL) throws(FetchError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .outputFolderUnwritable(path: directory.path, reason: (error as NSError).localizedDescription)
        }
        guard access(directory.path, W_OK | X_OK) == 0 else {
            throw .outputFolderUnwritable(path: directory.path, reason: String(cString: strerror(errno)))
        }
    }

    private func fetch(_ entry: FollowerEntry, fileName: String, into directory: URL) async -> FetchReport.Entry {
        let started = Date()
        func elapsed() -> Int { Int(Date().timeIntervalSince(started) * 1000) }
        if let problem = entry.problem {
            return Self.failure(entry, reason: problem, milliseconds: 0)
        }
        guard let url = entry.imageURL else {
            return Self.failure(entry, reason: "no image URL", milliseconds: 0)
        }
        let request = ImageRequest(url: variant.apply(to: url), spec: spec, cachePolicy: cachePolicy)
        let response: ImageResponse
        do {
            response = try await downloader.image(for: request)
        } catch {
            return Self.failure(entry, url: request.url, reason: error.description, milliseconds: elapsed())
        }
        let destination = directory.appendingPathComponent(fileName)
        guard destination.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path else {
            return Self.failure(entry, url: request.url, reason: "unsafe file name \(fileName)", milliseconds: elapsed())
        }
        do {
            try AtomicFile.write(response.data, to: destination)
        } catch {
            return Self.failure(entry, url: request.url, reason: "cannot write \(fileName): \(error.localizedDescription)", milliseconds: elapsed())
        }
        let outcome: FetchReport.Outcome = switch response.source {
        case .network: .ok
        case .memoryCache, .diskCache: .cached
        case .revalidated: .revalidated
        }
        return FetchReport.Entry(
            index: entry.index, id: entry.id, screenName: entry.screenName, url: request.url.absoluteString,
            outcome: outcome, reason: response.isStale ? "stale copy: the network failed" : nil,
            bytesReceived: response.bytesReceived, outputBytes: response.data.count,
            sourceFormat: response.info.format.rawValue, sourceWidth: response.info.orientedWidth,
            sourceHeight: response.info.orientedHeight, file: fileName, stale: response.isStale, milliseconds: elapsed()
        )
    }

    private static func failure(_ entry: FollowerEntry, url: URL? = nil, reason: String, milliseconds: Int) -> FetchReport.Entry {
        FetchReport.Entry(
            index: entry.index, id: entry.id, screenName: entry.screenName, url: (url ?? entry.imageURL)?.absoluteString,
            outcome: .failed, reason: reason, bytesReceived: 0, outputBytes: 0, sourceFormat: nil, sourceWidth: nil,
            sourceHeight: nil, file: nil, stale: false, milliseconds: milliseconds
        )
    }
}
