import Foundation

/// Why an image could not be loaded. Every case carries what a person needs to act on it.
///
/// A value type; safe to use from any thread.
public enum ImageLoadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The caller cancelled (only this caller: others waiting for the same image go on).
    case cancelled
    /// The transfer failed on the client side (timeout, reset, limits...), after `attempts` tries.
    case transfer(TransferError, attempts: Int)
    /// The server answered with an error status, after `attempts` tries.
    case status(HTTPStatusError, attempts: Int)
    /// The bytes are not a sound, supported image.
    case image(ImageError)
    /// Offline mode and nothing cached for this URL.
    case notCached(URL)
    /// The downloader was invalidated.
    case downloaderInvalidated

    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case let .transfer(error, attempts): attempts > 1 ? "\(error) (after \(attempts) attempts)" : "\(error)"
        case let .status(error, attempts):
            "HTTP \(error.statusCode)\(error.bodyExcerpt.isEmpty ? "" : ": \(error.bodyExcerpt.prefix(80))")"
                + (attempts > 1 ? " (after \(attempts) attempts)" : "")
        case let .image(error): "\(error)"
        case let .notCached(url): "offline and not cached: \(url.absoluteString)"
        case .downloaderInvalidated: "the downloader was shut down"
        }
    }

    /// Whether another try might succeed.
    var isRetryable: Bool {
        switch self {
        case let .transfer(error, _): error.isTransient
        case let .status(error, _): error.isRetryable
        default: false
        }
    }
}
