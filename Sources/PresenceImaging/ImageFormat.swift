/// An image (or not-image) format, told from the first bytes of a file alone.
///
/// A value type; safe to use from any thread.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case png, jpeg, gif, webp, bmp, tiff, heif, avif, svg
    /// HTML, XML or JSON text: typically an error page served with an image's URL.
    case html, xml, json
    /// Anything else.
    case unknown

    /// Whether ``ImageDecoder`` decodes this format.
    public var isDecodable: Bool { self == .png || self == .jpeg }

    /// Whether this is text rather than an image.
    public var isText: Bool { self == .html || self == .xml || self == .json }

    public var description: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .heif: "HEIF"
        case .avif: "AVIF"
        case .svg: "SVG"
        case .html: "HTML"
        case .xml: "XML"
        case .json: "JSON"
        case .unknown: "unknown format"
        }
    }

    /// Identifies the format from magic bytes; never looks at a name or a Content-Type.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat {
        let head = Array(bytes.prefix(512))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("BM".utf8)) && head.count >= 14 { return .bmp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return .avif }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heif }
        }
        return sniffText(head)
    }

    private static func sniffText(_ head: [UInt8]) -> ImageFormat {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        let lower = trimmed.prefix(256).lowercased()
        if lower.hasPrefix("<svg") || (lower.hasPrefix("<?xml") && lower.contains("<svg")) { return .svg }
        if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") || lower.hasPrefix("<head")
            || lower.hasPrefix("<body") || lower.hasPrefix("<!--") && lower.contains("<html") { return .html }
        if lower.hasPrefix("<?xml") || lower.hasPrefix("<") && lower.contains("</") { return lower.contains("<svg") ? .svg : .xml }
        if let first = trimmed.first, first == "{" || first == "[" { return .json }
        return .unknown
    }
}
