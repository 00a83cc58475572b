import Foundation

/// An HTTP status outside `200...299`, turned into an error by ``HTTPResponse/validateStatus(body:)``.
///
/// A value type; safe to use from any thread.
public struct HTTPStatusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of a failing status code.
    public enum Category: String, Sendable, Hashable {
        /// `400...499`: the request was wrong; retrying it unchanged will not help (except 408 and 429).
        case clientError = "client error"
        /// `500...599`: the server failed; retrying later may help.
        case serverError = "server error"
        /// Anything else outside `200...299` (1xx, 3xx that were not followed, or nonsense codes).
        case unexpected = "unexpected status"
    }

    /// The status code.
    public let statusCode: Int
    /// Which range the status falls in.
    public let category: Category
    /// The first bytes of the body, as text, for diagnostics.
    public let bodyExcerpt: String
    /// The server's `Retry-After`, in seconds, when it sent one as a number or an HTTP date.
    public let retryAfter: TimeInterval?
    /// The URL that answered.
    public let url: URL

    /// Whether a retry may succeed: 5xx, 408 and 429.
    public var isRetryable: Bool {
        switch statusCode {
        case 408, 429, 500...599: true
        default: false
        }
    }

    public var description: String {
        let excerpt = bodyExcerpt.isEmpty ? "" : ": \(bodyExcerpt)"
        return "HTTP \(statusCode) (\(category.rawValue)) from \(url.absoluteString)\(excerpt)"
    }
}

extension HTTPResponse {
    /// How many bytes of the body an ``HTTPStatusError`` keeps.
    public static let errorExcerptLength = 200

    /// Returns normally for `200...299`; throws an ``HTTPStatusError`` carrying the status and the
    /// first bytes of `body` otherwise.
    public func validateStatus(body: Data = Data()) throws(HTTPStatusError) {
        let category: HTTPStatusError.Category
        switch statusCode {
        case 200...299: return
        case 400...499: category = .clientError
        case 500...599: category = .serverError
        default: category = .unexpected
        }
        throw HTTPStatusError(
            statusCode: statusCode,
            category: category,
            bodyExcerpt: Self.excerpt(of: body),
            retryAfter: retryAfter,
            url: url
        )
    }

    /// The `Retry-After` header in seconds from now: either delta-seconds or an HTTP date.
    public var retryAfter: TimeInterval? {
        guard let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = TimeInterval(value), seconds >= 0 { return seconds }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }

    static func excerpt(of body: Data) -> String {
        let prefix = body.prefix(errorExcerptLength)
        let text = String(decoding: prefix, as: UTF8.self)
        let cleaned = text.unicodeScalars.map { scalar -> String in
            scalar.properties.generalCategory == .control ? " " : String(scalar)
        }.joined()
        return cleaned.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
