import CImageCodecs
import Foundation

/// Checks that bytes are a sound PNG or JPEG and decodes them to ``DecodedImage``.
///
/// A value type holding only its limits; safe to use from any thread, and many threads may decode
/// at once (every call has its own libpng / libjpeg state).
public struct ImageDecoder: Sendable {
    /// The limits every call enforces.
    public var limits: DecodingLimits

    /// Creates a decoder with `limits`.
    public init(limits: DecodingLimits = .default) {
        self.limits = limits
    }

    /// Reads the header only: format, dimensions, alpha, depth, interlacing, orientation.
    /// Refuses other formats, text, and images over the limits, without decoding pixels.
    public func info<Bytes: ContiguousBytes>(for bytes: Bytes) throws(ImageError) -> ImageInfo {
        try withCheckedBytes(bytes) { (buffer, format) throws(ImageError) in
            switch format {
            case .png: try pngInfo(buffer)
            default: try jpegInfo(buffer)
            }
        }
    }

    /// Decodes `bytes` to upright RGBA8 (EXIF orientation applied).
    ///
    /// - Parameter targetShortSide: when given and the image is at least twice as large, a JPEG is
    ///   decoded at 1/2, 1/4 or 1/8 scale in the DCT (shrink-on-load): the smallest scale whose short
    ///   side is still at least twice `targetShortSide`. PNGs always decode at full size.
    public func decode<Bytes: ContiguousBytes>(_ bytes: Bytes, targetShortSide: Int? = nil) throws(ImageError) -> DecodedImage {
        try decodeWithInfo(bytes, targetShortSide: targetShortSide).image
    }

    /// Like ``decode(_:targetShortSide:)``, also returning the header information.
    public func decodeWithInfo<Bytes: ContiguousBytes>(
        _ bytes: Bytes, targetShortSide: Int? = nil
    ) throws(ImageError) -> (image: DecodedImage, info: ImageInfo) {
        try withCheckedBytes(bytes) { (buffer, format) throws(ImageError) in
            switch format {
            case .png:
                let info = try pngInfo(buffer)
                return (try decodePNG(buffer, info: info), info)
            default:
                let (info, image) = try decodeJPEG(buffer, targetShortSide: targetShortSide)
                return (image.applyingOrientation(info.orientation), info)
            }
        }
    }

    // MARK: Gatekeeping

    private func withCheckedBytes<Bytes: ContiguousBytes, Result>(
        _ bytes: Bytes,
        _ body: (UnsafeRawBufferPointer, ImageFormat) throws(ImageError) -> Result
    ) throws(ImageError) -> Result {
        let outcome: Swift.Result<Result, ImageError> = bytes.withUnsafeBytes { buffer in
            guard !buffer.isEmpty else { return .failure(.empty) }
            guard buffer.count <= limits.maximumInputBytes else {
                return .failure(.inputTooLarge(bytes: buffer.count, limit: limits.maximumInputBytes))
            }
            let format = ImageFormat.sniff(buffer.bindMemory(to: UInt8.self))
            if format.isDecodable {
                return Swift.Result { () throws(ImageError) in try body(buffer, format) }
            }
            if format.isText || (format == .unknown && Self.looksLikeText(buffer)) {
                return .failure(.notAnImage(format, excerpt: Self.excerpt(buffer)))
            }
            return .failure(.unsupportedFormat(format))
        }
        return try outcome.get()
    }

    static func excerpt(_ buffer: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: buffer.prefix(120), as: UTF8.self)
        let printable = text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : String($0) }.joined()
        return printable.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func looksLikeText(_ buffer: UnsafeRawBufferPointer) -> Bool {
        let head = buffer.prefix(256)
        guard !head.isEmpty else { return false }
        let printable = head.filter { $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) || $0 >= 0xC2 }
        return printable.count * 100 >= head.count * 95
    }

    // MARK: PNG

    private func pngInfo(_ buffer: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        // Check IHDR's dimensions ourselves before libpng sees them: a bomb costs nothing.
        if buffer.count >= 24, Array(buffer[12..<16]) == Array("IHDR".utf8) {
            let width = Int(UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
            let height = Int(UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: 20, as: UInt32.self)))
            try limits.check(width: width, height: height)
        }
        var limits = self.limits.cValue
        var info = presence_image_info()
        var status = presence_codec_status()
        presence_png_info(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count, &limits, &info, &status)
        try Self.check(status)
        try self.limits.check(width: Int(info.width), height: Int(info.height))
        return Self.imageInfo(png: info)
    }

    private func decodePNG(_ buffer: UnsafeRawBufferPointer, info: ImageInfo) throws(ImageError) -> DecodedImage {
        var limits = self.limits.cValue
        var cInfo = presence_image_info()
        var status = presence_codec_status()
        let stride = info.width * 4
        let pixels = Self.uninitializedPixels(count: stride * info.height) { out in
            _ = presence_png_decode(
                buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count, &limits,
                out.baseAddress!, stride, UInt32(info.height), &cInfo, &status
            )
        }
        try Self.check(status)
        return DecodedImage(width: info.width, height: info.height, bytesPerRow: stride, pixels: pixels)
    }

    static func imageInfo(png info: presence_image_info) -> ImageInfo {
        let models = [0: "grayscale", 2: "RGB", 3: "palette", 4: "grayscale+alpha", 6: "RGBA"]
        return ImageInfo(
            format: .png, width: Int(info.width), height: Int(info.height), hasAlpha: info.has_alpha != 0,
            bitDepth: Int(info.bit_depth), isInterlacedOrProgressive: info.interlaced != 0, orientation: 1,
            colorModel: models[Int(info.color_type)] ?? "colour type \(info.color_type)"
        )
    }

    // MARK: JPEG

    private func jpegInfo(_ buffer: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        var limits = self.limits.cValue
        var info = presence_image_info()
        var status = presence_codec_status()
        var width: UInt32 = 0
        var height: UInt32 = 0
        presence_jpeg_info(
            buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count, &limits, 1,
            &info, &width, &height, &status
        )
        try Self.check(status)
        try self.limits.check(width: Int(info.width), height: Int(info.height))
        return Self.imageInfo(jpeg: info)
    }

    /// The DCT scale denominator for a short side of `shortSide` and a wanted `target`.
    static func shrinkOnLoadDenominator(shortSide: Int, target: Int?) -> Int {
        guard let target, target > 0 else { return 1 }
        var chosen = 1
        for denominator in [2, 4, 8] where (shortSide + denominator - 1) / denominator >= 2 * target {
            chosen = denominator
        }
        return chosen
    }

    private func decodeJPEG(_ buffer: UnsafeRawBufferPointer, targetShortSide: Int?) throws(ImageError) -> (ImageInfo, DecodedImage) {
        let header = try jpegInfo(buffer)
        let denominator = Self.shrinkOnLoadDenominator(shortSide: min(header.width, header.height), target: targetShortSide)
        // libjpeg's own rule for DCT scaling: jdiv_round_up(dimension × 1, denominator).
        let width = (header.width + denominator - 1) / denominator
        let height = (header.height + denominator - 1) / denominator
        var limits = self.limits.cValue
        var info = presence_image_info()
        var status = presence_codec_status()
        let stride = width * 4
        let pixels = Self.uninitializedPixels(count: stride * height) { out in
            _ = presence_jpeg_decode(
                buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count, &limits, Int32(denominator),
                out.baseAddress!, stride, UInt32(height), &info, &status
            )
        }
        try Self.check(status)
        return (header, DecodedImage(width: width, height: height, bytesPerRow: stride, pixels: pixels))
    }

    static func imageInfo(jpeg info: presence_image_info) -> ImageInfo {
        // libjpeg's J_COLOR_SPACE: 1 grayscale, 2 RGB, 3 YCbCr, 4 CMYK, 5 YCCK.
        let models = [1: "grayscale", 2: "RGB", 3: "YCbCr", 4: "CMYK", 5: "YCCK"]
        return ImageInfo(
            format: .jpeg, width: Int(info.width), height: Int(info.height), hasAlpha: false,
            bitDepth: Int(info.bit_depth), isInterlacedOrProgressive: info.interlaced != 0,
            orientation: info.orientation == 0 ? 1 : Int(info.orientation),
            colorModel: models[Int(info.jpeg_color_space)] ?? "colour space \(info.jpeg_color_space)"
        )
    }

    /// A pixel buffer the codec fills. It is zeroed only if the codec fails, so a failed decode
    /// never exposes uninitialised memory (the buffer is then discarded anyway).
    static func uninitializedPixels(count: Int, fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(buffer)
            initialized = count
        }
    }

    // MARK: Status codes

    static func check(_ status: presence_codec_status) throws(ImageError) {
        let message = withUnsafeBytes(of: status.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch status.code {
        case PRESENCE_CODEC_OK: return
        case PRESENCE_CODEC_TRUNCATED: throw .truncated(message)
        case PRESENCE_CODEC_LIMIT: throw .limitExceeded(message)
        case PRESENCE_CODEC_UNSUPPORTED: throw .unsupportedFeature(message)
        case PRESENCE_CODEC_NO_MEMORY: throw .outOfMemory
        default: throw .corrupt(message)
        }
    }
}
