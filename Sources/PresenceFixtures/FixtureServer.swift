import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PresenceLocking

/// A local HTTP/1.1 server on 127.0.0.1 for tests, benchmarks and demos: registered bodies with
/// validators and ranges, generated content, transport options and fault routes, and counters.
///
/// Thread-safe: every method may be called from any thread.
///
/// Routes (query options combine with any route: `delay=MS` time to first byte, `rate=BYTES_PER_S`
/// trickled body, `chunked=1` chunked encoding, `gzip=1` gzip Content-Encoding, `fail=N` answer
/// the first N requests of that path with `failstatus` (503) and `retry-after`, `gate=NAME` hold
/// the response until ``openGate(_:)`` is called, or with `holdafter=N` send N body bytes first):
/// - registered paths (``register(_:at:)``) and mounted content (``mount(_:)``), with ETag,
///   Last-Modified, 304 for If-None-Match / If-Modified-Since, 206 for Range / If-Range;
/// - `/bytes/N?seed=S`: N deterministic bytes (see ``PatternBytes``), with the same validators;
/// - `/status/CODE?retry-after=S&body=TEXT&location=URL`;
/// - `/echo`: the request (method, headers, body) as JSON;
/// - `/html?type=image/jpeg`: an HTML error page served under an image content type;
/// - `/fault/reset?size=&after=`, `/fault/truncate?length=&send=`, `/fault/stall`,
///   `/fault/redirect-loop`, `/fault/redirect-file` (to `file:///etc/passwd`), `/fault/redirect?to=`,
///   `/fault/huge?size=` (default 1 GiB, streamed), `/fault/gzip-bomb?size=` (inflates to 256 MiB by default).
public final class FixtureServer: Sendable {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public let baseURL: URL
    /// The ephemeral port the server is bound to.
    public let port: Int

    private let serverChannel: any Channel
    private let registry: FixtureRegistry
    private let statistics: FixtureStats
    private let connections: ConnectionTracker

    private init(serverChannel: any Channel, registry: FixtureRegistry, statistics: FixtureStats, connections: ConnectionTracker) {
        self.serverChannel = serverChannel
        self.registry = registry
        self.statistics = statistics
        self.port = serverChannel.localAddress?.port ?? 0
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
        self.connections = connections
    }

    /// Starts a server on `host` (loopback by default) and an ephemeral port unless `port` is given.
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> FixtureServer {
        let registry = FixtureRegistry()
        let statistics = FixtureStats()
        let routes = FixtureRoutes(registry: registry)
        let tracker = ConnectionTracker()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                statistics.connectionAccepted()
                tracker.add(channel)
                channel.closeFuture.whenComplete { _ in tracker.remove(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FixtureHandler(routes: routes, stats: statistics, registry: registry))
                }
            }
            .bind(host: host, port: port)
            .get()
        return FixtureServer(serverChannel: channel, registry: registry, statistics: statistics, connections: tracker)
    }

    /// Stops accepting, closes every open connection (stalled ones too) and waits for the listener to close.
    public func stop() async throws {
        try? await serverChannel.close()
        let open = connections.channels.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }

    /// The URL of `path` (which starts with `/`), with `query` items appended in order.
    public func url(_ path: String, _ query: KeyValuePairs<String, String> = [:]) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.percentEncodedPath = path
        if query.count > 0 { components.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) } }
        return components.url!
    }

    /// Serves `resource` at `path` from now on.
    public func register(_ resource: StaticResource, at path: String) {
        registry.register(resource, at: path)
    }

    /// Serves `body` at `path` with a derived ETag and a fixed Last-Modified.
    public func register(_ body: [UInt8], at path: String, contentType: String = "application/octet-stream", cacheControl: String? = nil) {
        registry.register(StaticResource(body: body, contentType: contentType, cacheControl: cacheControl), at: path)
    }

    /// Adds generated content (consulted after registered paths and built-in routes).
    public func mount(_ content: any FixtureContent) {
        registry.mount(content)
    }

    /// Releases every response held by `?gate=name`, and lets later ones through at once.
    public func openGate(_ name: String) {
        registry.open(gate: name)
    }

    /// How many responses (or their remainders) are held at gate `name` right now.
    public func responsesWaiting(atGate name: String) -> Int {
        registry.waiting(at: name)
    }

    /// A snapshot of the counters.
    public var stats: FixtureStatsSnapshot { statistics.snapshot }

    /// Zeroes the counters (requests still in flight stay counted as in flight).
    public func resetStats() {
        statistics.reset()
    }
}

/// The open connections, so that ``FixtureServer/stop()`` can close stalled ones.
///
/// Thread-safe: `channels`'s lock guards the table.
final class ConnectionTracker: Sendable {
    let channels = Locked<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        channels.withLock { $0[ObjectIdentifier(channel)] = channel }
    }

    func remove(_ channel: any Channel) {
        channels.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
