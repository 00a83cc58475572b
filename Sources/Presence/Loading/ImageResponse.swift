import Foundation

/// A loaded, verified image.
///
/// A value type; safe to use from any thread.
public struct ImageResponse: Sendable {
    /// Where the bytes came from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// Downloaded now.
        case network
        /// The processed image from the memory cache.
        case memoryCache
        /// Original bytes from the disk cache, without a request.
        case diskCache
        /// The disk cache's bytes, confirmed current by a 304 Not Modified.
        case revalidated
    }

    /// The request this answers.
    public var request: ImageRequest
    /// The thumbnail's pixels (for a spec) or the whole upright image (for the original).
    public var image: DecodedImage
    /// The encoded thumbnail (for a spec) or the original bytes.
    public var data: Data
    /// The source image's header information.
    public var info: ImageInfo
    /// Where it came from.
    public var source: Source
    /// True when a stale cache entry was served because the network failed (or offline mode).
    public var isStale: Bool
    /// Body bytes received from the network for it (0 from caches).
    public var bytesReceived: Int
}

/// Progress of one download.
public struct DownloadProgress: Sendable, Hashable {
    /// Body bytes received so far.
    public var receivedBytes: Int64
    /// Bytes expected, or -1 when the server did not say.
    public var expectedBytes: Int64

    /// Received as a fraction of expected, when known.
    public var fractionCompleted: Double? {
        expectedBytes > 0 ? min(1, Double(receivedBytes) / Double(expectedBytes)) : nil
    }
}
