/// Why bytes are not a usable image, or why an image could not be produced.
///
/// A value type; safe to use from any thread.
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// A real image format that Presence recognises but does not decode (GIF, WebP, BMP, TIFF, HEIF, AVIF, SVG).
    case unsupportedFormat(ImageFormat)
    /// Text, not an image: typically an HTML error page or JSON served with status 200.
    case notAnImage(ImageFormat, excerpt: String)
    /// The data ends before the image does.
    case truncated(String)
    /// The data is damaged or not valid for its format (bad CRC, bad markers, bad header).
    case corrupt(String)
    /// The header declares more pixels than the limits allow; refused before any pixel buffer exists.
    case tooLarge(width: Int, height: Int, limit: String)
    /// More bytes than ``DecodingLimits/maximumInputBytes``.
    case inputTooLarge(bytes: Int, limit: Int)
    /// A structural limit was hit: progressive scans, ancillary chunks, chunk size.
    case limitExceeded(String)
    /// A valid file using a feature the codec library does not support (12-bit or lossless JPEG).
    case unsupportedFeature(String)
    /// Memory for the image could not be allocated.
    case outOfMemory
    /// Encoding the output failed.
    case encodingFailed(String)
    /// The thumbnail specification is unusable (for example a size of 0).
    case invalidSpecification(String)

    public var description: String {
        switch self {
        case .empty: "empty file"
        case let .unsupportedFormat(format): "\(format) images are not supported (only PNG and JPEG)"
        case let .notAnImage(format, excerpt): "not an image but \(format) text: \"\(excerpt)\""
        case let .truncated(detail): "truncated: \(detail)"
        case let .corrupt(detail): "corrupt: \(detail)"
        case let .tooLarge(width, height, limit): "too large: \(width)×\(height) exceeds \(limit)"
        case let .inputTooLarge(bytes, limit): "too large: \(bytes) bytes exceeds the \(limit)-byte limit"
        case let .limitExceeded(detail): "limit exceeded: \(detail)"
        case let .unsupportedFeature(detail): "unsupported: \(detail)"
        case .outOfMemory: "out of memory"
        case let .encodingFailed(detail): "encoding failed: \(detail)"
        case let .invalidSpecification(detail): "invalid thumbnail specification: \(detail)"
        }
    }
}
