import Foundation

/// When and how soon a failed download is tried again: exponential backoff with jitter for
/// timeouts, lost or refused connections and 5xx / 408 / 429; `Retry-After` honoured up to a cap;
/// other 4xx never retried.
///
/// A value type; safe to use from any thread.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt. Default 2.
    public var maximumRetries: Int = 2
    /// The first backoff delay; each retry doubles it. Default 0.25 s.
    public var baseDelay: TimeInterval = 0.25
    /// The longest backoff delay. Default 8 s.
    public var maximumDelay: TimeInterval = 8
    /// The longest `Retry-After` honoured; longer ones are capped to this. Default 30 s.
    public var maximumRetryAfter: TimeInterval = 30

    /// The default policy.
    public init() {}

    /// A policy that never retries.
    public static var none: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumRetries = 0
        return policy
    }

    /// The delay before retry number `retry` (1-based) after `error`, or nil when it must not be retried.
    func delay(beforeRetry retry: Int, after error: ImageLoadingError, jitter: Double = Double.random(in: 0.5...1)) -> TimeInterval? {
        guard retry <= maximumRetries, error.isRetryable else { return nil }
        if case let .status(status, _) = error, let retryAfter = status.retryAfter {
            return min(retryAfter, maximumRetryAfter)
        }
        return min(maximumDelay, baseDelay * pow(2, Double(retry - 1))) * jitter
    }
}
