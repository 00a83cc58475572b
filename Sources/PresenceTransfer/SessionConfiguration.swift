import Foundation

/// How a ``Session`` connects, times out and limits what it receives.
///
/// A value type; safe to use from any thread. The session copies it when it is created, so later
/// changes to the variable do not reach an existing session. Mirrors `URLSessionConfiguration`.
public struct SessionConfiguration: Sendable, Hashable {
    /// Idle timeout: a task fails with ``TransferError/timedOut(_:seconds:)`` (`.idle`) when no
    /// bytes arrive for this long. Measured to the millisecond. Default 60 s.
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// Total timeout for a task, from the moment it gets a connection slot. Default 7 days, as URLSession.
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// Time allowed to establish a connection (DNS, TCP and TLS). Default 30 s.
    public var connectTimeout: TimeInterval = 30
    /// At most this many transfers to one host (scheme, host and port) at once; others wait,
    /// ordered by ``SessionTask/priority`` and then by creation. Default 6.
    public var httpMaximumConnectionsPerHost: Int = 6
    /// Header fields added to every request (a request's own fields win).
    public var httpAdditionalHeaders: HTTPHeaders = [:]
    /// The `User-Agent` sent with every request unless the request sets its own.
    public var userAgent: String = "Presence/1.0 (libcurl)"
    /// Whether redirects are followed at all. Default true.
    public var followsRedirects: Bool = true
    /// At most this many redirects are followed; one more fails with `.tooManyRedirects`. Default 10.
    public var maximumRedirects: Int = 10
    /// URL schemes allowed for requests and redirects. Only `http` and `https` are supported;
    /// narrowing to `["https"]` is allowed, widening is not.
    public var allowedProtocols: Set<String> = ["http", "https"] {
        didSet { allowedProtocols = allowedProtocols.intersection(["http", "https"]) }
    }
    /// A response body larger than this stops the transfer at once with `.responseTooLarge`.
    /// Counted after content decoding, so a gzip bomb is stopped too. `nil` for no limit. Default 64 MiB.
    public var maximumResponseBytes: Int64? = 64 << 20
    /// Whether TLS peers are verified (certificate chain and host name). Default true.
    public var verifiesTLSPeer: Bool = true
    /// Whether `Accept-Encoding` asks for gzip/deflate and bodies are decoded. Default true.
    public var acceptsCompressedResponses: Bool = true
    /// Most idle connections kept open for reuse across all hosts. Default 32.
    public var maximumIdleConnections: Int = 32
    /// Where download tasks write their temporary files. Default: the system temporary folder.
    public var temporaryDirectory: URL = FileManager.default.temporaryDirectory

    /// Creates the default configuration.
    public init() {}

    /// The default configuration.
    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// A configuration for short-lived, private sessions: the same defaults, and a session built
    /// from it keeps no state on disk (the transfer engine never does).
    public static var ephemeral: SessionConfiguration { SessionConfiguration() }
}
