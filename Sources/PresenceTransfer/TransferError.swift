/// What libcurl said about a failure: its `CURLcode` and its message.
public struct CurlDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The raw `CURLcode`.
    public let code: Int32
    /// libcurl's error buffer, or its generic text for the code.
    public let message: String

    /// Creates a diagnostic.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "curl error \(code): \(message)" }
}

/// A client-side transfer failure. As with `URLSession`, an HTTP status such as 404 is not a
/// `TransferError`: see ``HTTPStatusError`` for that.
///
/// A value type; safe to use from any thread.
public enum TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which timeout ended a transfer.
    public enum Timeout: String, Sendable, Hashable {
        /// No connection was established in time.
        case connect
        /// No bytes arrived for longer than the request (idle) timeout.
        case idle
        /// The whole transfer took longer than the resource timeout.
        case total
    }

    /// A timeout fired.
    case timedOut(Timeout, seconds: Double)
    /// The server refused the connection or could not be reached.
    case cannotConnect(CurlDiagnostic)
    /// The host name could not be resolved.
    case cannotResolveHost(CurlDiagnostic)
    /// The connection broke mid-transfer: reset, truncated body, or closed early.
    case connectionLost(CurlDiagnostic)
    /// More redirects than the configuration allows (a redirect loop, usually).
    case tooManyRedirects(limit: Int)
    /// The URL, or a redirect, uses a scheme other than the allowed ones (http and https).
    case disallowedProtocol(String)
    /// The URL cannot be fetched at all (malformed, or no host).
    case unsupportedURL(String)
    /// The body exceeded the configured maximum; the transfer was stopped when it did.
    case responseTooLarge(limit: Int64)
    /// The task was cancelled.
    case cancelled
    /// TLS negotiation or certificate verification failed.
    case tlsFailure(CurlDiagnostic)
    /// The server's answer was not valid HTTP, or its content encoding was broken.
    case badServerResponse(CurlDiagnostic)
    /// A download's temporary file could not be written.
    case cannotWriteFile(path: String, reason: String)
    /// The resume data given to `downloadTask(withResumeData:)` is not usable.
    case invalidResumeData(String)
    /// The session was invalidated before the task could start.
    case sessionInvalidated
    /// Any other libcurl failure.
    case other(CurlDiagnostic)

    public var description: String {
        switch self {
        case let .timedOut(kind, seconds): "timed out (\(kind.rawValue) timeout of \(formatSeconds(seconds)))"
        case let .cannotConnect(d): "cannot connect: \(d.message)"
        case let .cannotResolveHost(d): "cannot resolve host: \(d.message)"
        case let .connectionLost(d): "connection lost: \(d.message)"
        case let .tooManyRedirects(limit): "too many redirects (limit \(limit))"
        case let .disallowedProtocol(scheme): "protocol not allowed: \(scheme) (only http and https are)"
        case let .unsupportedURL(url): "unsupported URL: \(url)"
        case let .responseTooLarge(limit): "response larger than the limit of \(limit) bytes"
        case .cancelled: "cancelled"
        case let .tlsFailure(d): "TLS failure: \(d.message)"
        case let .badServerResponse(d): "bad server response: \(d.message)"
        case let .cannotWriteFile(path, reason): "cannot write \(path): \(reason)"
        case let .invalidResumeData(reason): "invalid resume data: \(reason)"
        case .sessionInvalidated: "the session was invalidated"
        case let .other(d): d.description
        }
    }

    /// Whether trying again later might succeed: timeouts, lost or refused connections.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .connectionLost, .cannotConnect: true
        default: false
        }
    }
}

private func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
