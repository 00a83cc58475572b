import CImageCodecs

/// Bounds checked from an image's header before any pixel buffer is allocated, so that a
/// decompression bomb costs nothing.
///
/// A value type; safe to use from any thread.
public struct DecodingLimits: Sendable, Hashable, Codable {
    /// Largest input accepted, in bytes. Default 40 MiB.
    public var maximumInputBytes: Int = 40 << 20
    /// Widest image accepted. Default 16,384.
    public var maximumWidth: Int = 16_384
    /// Tallest image accepted. Default 16,384.
    public var maximumHeight: Int = 16_384
    /// Most pixels accepted (width × height). Default 40 megapixels.
    public var maximumPixels: Int = 40_000_000
    /// Most scans a progressive JPEG may have (the scan-count attack). Default 64.
    public var maximumProgressiveScans: Int = 64
    /// Most ancillary PNG chunks kept. Default 1,000 (libpng's own default).
    public var maximumAncillaryChunks: Int = 1_000
    /// Largest PNG chunk libpng may allocate, in bytes. Default 8 MiB.
    public var maximumChunkBytes: Int = 8 << 20

    /// The defaults: generous for avatars and photos, fatal for bombs.
    public init() {}

    /// The default limits.
    public static var `default`: DecodingLimits { DecodingLimits() }

    /// Throws ``ImageError/tooLarge(width:height:limit:)`` when a header's dimensions break the limits.
    public func check(width: Int, height: Int) throws(ImageError) {
        if width > maximumWidth || height > maximumHeight {
            throw .tooLarge(width: width, height: height, limit: "the \(maximumWidth)×\(maximumHeight) limit")
        }
        if width.multipliedReportingOverflow(by: height).partialValue > maximumPixels || width * height < 0 {
            throw .tooLarge(width: width, height: height, limit: "the \(maximumPixels)-pixel limit")
        }
    }

    var cValue: presence_decode_limits {
        presence_decode_limits(
            max_width: UInt32(clamping: maximumWidth),
            max_height: UInt32(clamping: maximumHeight),
            max_pixels: UInt64(clamping: maximumPixels),
            max_progressive_scans: UInt32(clamping: maximumProgressiveScans),
            max_ancillary_chunks: UInt32(clamping: maximumAncillaryChunks),
            max_chunk_bytes: UInt32(clamping: maximumChunkBytes)
        )
    }
}
