import Foundation

/// The final response a server gave to a task (after any redirects were followed).
///
/// A value type; safe to use from any thread. Mirrors `HTTPURLResponse`.
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code, such as 200 or 404.
    public let statusCode: Int
    /// The response header fields, in the order the server sent them.
    public let headers: HTTPHeaders
    /// The URL that produced this response: the request's URL after redirects.
    public let url: URL
    /// The body length the server announced, or -1 when it did not (chunked, or closed-delimited).
    public let expectedContentLength: Int64

    /// Creates a response.
    public init(statusCode: Int, headers: HTTPHeaders, url: URL, expectedContentLength: Int64) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.expectedContentLength = expectedContentLength
    }

    /// The `Content-Type` header's media type, lowercased and without parameters.
    public var mimeType: String? {
        headers["Content-Type"].map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The strong or weak entity tag, if the server sent one.
    public var entityTag: String? { headers["ETag"] }

    /// The `Last-Modified` header, verbatim.
    public var lastModified: String? { headers["Last-Modified"] }
}
