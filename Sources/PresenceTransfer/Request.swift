import Foundation

/// What a task asks a server for: URL, method, header fields and an optional body.
///
/// A value type; safe to use from any thread. Mirrors `URLRequest`.
public struct Request: Sendable, Hashable {
    /// The URL to fetch. Only `http` and `https` are allowed by default.
    public var url: URL
    /// The HTTP method, `GET` by default.
    public var method: String
    /// Header fields sent with the request, added after the session's additional headers.
    public var headers: HTTPHeaders
    /// The request body, sent as is (for `POST`, `PUT`, `PATCH`).
    public var body: Data?
    /// The idle timeout for this request, overriding the configuration's `timeoutIntervalForRequest`.
    public var timeoutInterval: TimeInterval?

    /// Creates a request.
    public init(
        url: URL,
        method: String = "GET",
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeoutInterval: TimeInterval? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
    }
}
