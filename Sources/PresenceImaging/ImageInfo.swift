/// What an image's header says, read without decoding its pixels.
///
/// A value type; safe to use from any thread.
public struct ImageInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The format, from magic bytes.
    public var format: ImageFormat
    /// Width as stored, before EXIF orientation.
    public var width: Int
    /// Height as stored, before EXIF orientation.
    public var height: Int
    /// Whether the image has an alpha channel or a transparent colour (PNG tRNS).
    public var hasAlpha: Bool
    /// Bits per sample (1, 2, 4, 8 or 16 for PNG; 8 or 12 for JPEG).
    public var bitDepth: Int
    /// PNG Adam7 interlacing, or JPEG progressive coding.
    public var isInterlacedOrProgressive: Bool
    /// EXIF orientation, 1...8 (1 when absent).
    public var orientation: Int
    /// Colour model in words: "RGB", "grayscale", "palette", "CMYK", "YCCK", ...
    public var colorModel: String

    /// Width once the EXIF orientation is applied.
    public var orientedWidth: Int { orientation >= 5 ? height : width }
    /// Height once the EXIF orientation is applied.
    public var orientedHeight: Int { orientation >= 5 ? width : height }

    public var description: String {
        var parts = ["\(format) \(orientedWidth)×\(orientedHeight)", colorModel, "\(bitDepth)-bit"]
        if hasAlpha { parts.append("alpha") }
        if isInterlacedOrProgressive { parts.append(format == .jpeg ? "progressive" : "interlaced") }
        if orientation != 1 { parts.append("EXIF orientation \(orientation)") }
        return parts.joined(separator: ", ")
    }
}
