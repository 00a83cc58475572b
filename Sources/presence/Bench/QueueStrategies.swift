import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Presence
import PresenceLocking

/// The ways of fetching, validating and thumbnailing a list that the benchmark compares. Every
/// strategy does the same work per image: download, decode (checking it is sound), make the
/// same thumbnail, and record its digest.
enum QueueStrategy: String, CaseIterable, Codable, Sendable {
    /// `ImageDownloadOperation` on an `OperationQueue` of width N; decoding on a separate queue.
    case operationQueue = "operation-queue"
    /// The same, decoding inside the operation (holding its download slot).
    case operationQueueDecodeInside = "operation-queue-decode-inside"
    /// A concurrent `DispatchQueue` with a `DispatchSemaphore` of N; each item blocks a thread.
    case gcdSemaphore = "gcd-semaphore"
    /// Structured concurrency: a `TaskGroup` keeping N downloads in flight.
    case taskGroup = "task-group"
    /// One curl multi loop with N transfers in flight and no per-download operation.
    case curlMulti = "curl-multi"
    /// Peer: Foundation's `URLSession` (FoundationNetworking) with the same connection limit.
    case urlSession = "urlsession"

    var isPeer: Bool { self == .urlSession }

    /// Runs the strategy over `urls` with `width` at once and returns what it measured.
    func run(urls: [URL], width: Int, spec: AvatarSpec, scenario: String) async -> BenchMeasurement {
        let recorder = BenchRecorder()
        let sampler = ThreadSampler()
        let cpuBefore = ProcessProbe.cpuSeconds()
        let started = Date()
        switch self {
        case .operationQueue: await Self.operations(urls, width: width, spec: spec, decodeInside: false, recorder: recorder)
        case .operationQueueDecodeInside: await Self.operations(urls, width: width, spec: spec, decodeInside: true, recorder: recorder)
        case .gcdSemaphore: await Self.gcd(urls, width: width, spec: spec, recorder: recorder)
        case .taskGroup: await Self.taskGroup(urls, width: width, spec: spec, recorder: recorder)
        case .curlMulti: await Self.curlMulti(urls, width: width, spec: spec, recorder: recorder)
        case .urlSession: await Self.foundation(urls, width: width, spec: spec, recorder: recorder)
        }
        let wall = Date().timeIntervalSince(started)
        return BenchMeasurement(
            strategy: rawValue, concurrency: width, scenario: scenario, entries: urls.count, succeeded: recorder.succeeded,
            wallSeconds: wall, cpuSeconds: ProcessProbe.cpuSeconds() - cpuBefore, peakResidentBytes: ProcessProbe.peakResidentBytes(),
            peakThreads: sampler.stop(), latencyP50Milliseconds: recorder.percentile(0.5),
            latencyP99Milliseconds: recorder.percentile(0.99), outputDigest: recorder.combinedDigest, note: nil
        )
    }

    static func thumbnail(_ data: Data, spec: AvatarSpec) -> Data? {
        try? Thumbnailer().thumbnail(from: data, spec: spec).data
    }

    static func session(width: Int) -> Session {
        var configuration = SessionConfiguration()
        configuration.httpMaximumConnectionsPerHost = width
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = max(2, ProcessInfo.processInfo.activeProcessorCount)
        return Session(configuration: configuration, delegateQueue: queue, sessionDescription: "presence.bench")
    }

    // MARK: 1-3. ImageDownloadOperation on an OperationQueue

    private static func operations(_ urls: [URL], width: Int, spec: AvatarSpec, decodeInside: Bool, recorder: BenchRecorder) async {
        let session = session(width: width)
        defer { session.finishTasksAndInvalidate() }
        let downloads = OperationQueue()
        downloads.maxConcurrentOperationCount = width
        let decodes = OperationQueue()
        decodes.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
        let processor = ImageProcessor(thumbnailer: Thumbnailer())
        let countdown = Countdown(urls.count)
        await countdown.wait(after: {
            for (index, url) in urls.enumerated() {
                downloads.addOperation(makeOperation(
                    index: index, url: url, spec: spec, session: session, processor: decodeInside ? processor : nil,
                    decodes: decodes, recorder: recorder, finished: countdown.tick
                ))
            }
        })
    }

    private static func makeOperation(
        index: Int, url: URL, spec: AvatarSpec, session: Session, processor: ImageProcessor?,
        decodes: OperationQueue, recorder: BenchRecorder, finished: @escaping @Sendable () -> Void
    ) -> ImageDownloadOperation {
        let request = ImageRequest(url: url, spec: spec)
        // Lets the completion read the operation's start time; cleared there, breaking the cycle.
        let handle = Locked<ImageDownloadOperation?>(nil)
        let inside: (@Sendable (DownloadedData) -> Result<ImageResponse, ImageLoadingError>)? =
            processor.map { processor in { @Sendable downloaded in processor.process(downloaded, for: request) } }
        let operation = ImageDownloadOperation(request: request, session: session, retryPolicy: .none, processor: inside) { outcome in
            let start: Date = handle.withLock { operation in
                defer { operation = nil }
                return operation?.startedAt
            } ?? Date()
            switch outcome {
            case let .processed(response):
                recorder.record(index: index, started: start, thumbnail: response.data)
                finished()
            case let .downloaded(data):
                decodes.addOperation {
                    recorder.record(index: index, started: start, thumbnail: thumbnail(data.data, spec: spec))
                    finished()
                }
            case .failed:
                recorder.record(index: index, started: start, thumbnail: nil)
                finished()
            }
        }
        handle.withLock { $0 = operation }
        return operation
    }

    // MARK: 4. GCD with a semaphore

    private static func gcd(_ urls: [URL], width: Int, spec: AvatarSpec, recorder: BenchRecorder) async {
        let session = session(width: width)
        defer { session.finishTasksAndInvalidate() }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // The submitting loop blocks on the semaphore, so it runs on its own thread.
            Thread {
                let queue = DispatchQueue(label: "presence.bench.gcd", attributes: .concurrent)
                let slots = DispatchSemaphore(value: width)
                let group = DispatchGroup()
                for (index, url) in urls.enumerated() {
                    slots.wait()
                    queue.async(group: group) {
                        let started = Date()
                        let arrived = DispatchSemaphore(value: 0)
                        let body = Locked<Data?>(nil)
                        session.dataTask(with: Request(url: url)) { data, response, _ in
                            if let response, (200...299).contains(response.statusCode) { body.withLock { $0 = data } }
                            arrived.signal()
                        }.resume()
                        arrived.wait()  // the pattern under test: a blocked thread per download
                        recorder.record(index: index, started: started, thumbnail: body.withLock { $0 }.flatMap { thumbnail($0, spec: spec) })
                        slots.signal()
                    }
                }
                group.wait()
                done.resume()
            }.start()
        }
    }

    // MARK: 5. TaskGroup

    private static func taskGroup(_ urls: [URL], width: Int, spec: AvatarSpec, recorder: BenchRecorder) async {
        let session = session(width: width)
        defer { session.finishTasksAndInvalidate() }
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                guard next < urls.count else { return }
                let index = next, url = urls[next]
                next += 1
                group.addTask {
                    let started = Date()
                    let data = try? await session.data(for: Request(url: url))
                    let ok = data.map { (200...299).contains($0.1.statusCode) } ?? false
                    recorder.record(index: index, started: started, thumbnail: ok ? data.flatMap { thumbnail($0.0, spec: spec) } : nil)
                }
            }
            for _ in 0..<width { add() }
            while await group.next() != nil { add() }
        }
    }

    // MARK: 6. One curl multi loop

    private static func curlMulti(_ urls: [URL], width: Int, spec: AvatarSpec, recorder: BenchRecorder) async {
        let session = session(width: width)
        defer { session.finishTasksAndInvalidate() }
        await feed(urls, width: width) { index, url, started, finish in
            session.dataTask(with: Request(url: url)) { data, response, _ in
                let ok = response.map { (200...299).contains($0.statusCode) } ?? false
                recorder.record(index: index, started: started, thumbnail: ok ? data.flatMap { thumbnail($0, spec: spec) } : nil)
                finish()
            }.resume()
        }
    }

    // MARK: Peer: URLSession (FoundationNetworking)

    private static func foundation(_ urls: [URL], width: Int, spec: AvatarSpec, recorder: BenchRecorder) async {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = width
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        await feed(urls, width: width) { index, url, started, finish in
            session.dataTask(with: url) { data, response, _ in
                let ok = (response as? HTTPURLResponse).map { (200...299).contains($0.statusCode) } ?? false
                recorder.record(index: index, started: started, thumbnail: ok ? data.flatMap { thumbnail($0, spec: spec) } : nil)
                finish()
            }.resume()
        }
    }

    /// Keeps `width` items in flight: starts the next when one calls its `finish`.
    private static func feed(
        _ urls: [URL], width: Int,
        start: @escaping @Sendable (Int, URL, Date, @escaping @Sendable () -> Void) -> Void
    ) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let state = Locked((next: 0, remaining: urls.count))
            @Sendable func launchNext() {
                let index: Int? = state.withLock { s in
                    guard s.next < urls.count else { return nil }
                    defer { s.next += 1 }
                    return s.next
                }
                guard let index else { return }
                start(index, urls[index], Date()) {
                    let last = state.withLock { s -> Bool in
                        s.remaining -= 1
                        return s.remaining == 0
                    }
                    if last { done.resume() } else { launchNext() }
                }
            }
            if urls.isEmpty { done.resume() }
            for _ in 0..<min(width, urls.count) { launchNext() }
        }
    }
}

/// Resumes a waiter when a count reaches zero.
///
/// Thread-safe: `state`'s lock guards the count and the continuation.
final class Countdown: Sendable {
    private let state: Locked<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

    init(_ count: Int) {
        state = Locked((count, nil))
    }

    /// Runs `start`, then waits until ``tick()`` has been called as many times as the count.
    func wait(after start: () -> Void) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { s -> Bool in
                s.waiter = continuation
                return s.remaining <= 0
            }
            start()
            if done { continuation.resume() }
        }
    }

    @Sendable func tick() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.remaining -= 1
            guard s.remaining == 0 else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }
}
