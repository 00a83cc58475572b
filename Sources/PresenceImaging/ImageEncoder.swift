import CImageCodecs
import Foundation

/// PNG (libpng) and JPEG (libjpeg-turbo) encoders. No metadata is written.
///
/// Stateless; safe to use from any thread.
public enum ImageEncoder {
    /// Encodes `image` as PNG at zlib `compressionLevel`; alpha is kept only when some pixel is
    /// not opaque (or when `keepAlpha` says so).
    public static func png(_ image: DecodedImage, compressionLevel: Int = 6, keepAlpha: Bool? = nil) throws(ImageError) -> Data {
        let alpha = keepAlpha ?? image.hasTransparency
        return try encode { output, size, status in
            image.pixels.withUnsafeBufferPointer { pixels in
                presence_png_encode(
                    pixels.baseAddress, UInt32(image.width), UInt32(image.height), image.bytesPerRow,
                    alpha ? 1 : 0, Int32(compressionLevel), output, size, status
                )
            }
        }
    }

    /// Encodes `image` as JPEG at `quality`; transparency is composited onto `background` (RGB).
    public static func jpeg(_ image: DecodedImage, quality: Int = 85, progressive: Bool = false, background: [UInt8] = [255, 255, 255]) throws(ImageError) -> Data {
        let flat = image.hasTransparency ? image.flattened(onto: background) : image
        return try encode { output, size, status in
            flat.pixels.withUnsafeBufferPointer { pixels in
                presence_jpeg_encode(
                    pixels.baseAddress, UInt32(flat.width), UInt32(flat.height), flat.bytesPerRow,
                    Int32(quality), progressive ? 1 : 0, output, size, status
                )
            }
        }
    }

    private static func encode(
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<presence_codec_status>) -> Int32
    ) throws(ImageError) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var status = presence_codec_status()
        _ = body(&output, &size, &status)
        guard status.code == PRESENCE_CODEC_OK, let output else {
            let message = withUnsafeBytes(of: status.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .encodingFailed(message)
        }
        defer { presence_codec_free(output) }
        return Data(bytes: output, count: size)
    }
}

extension DecodedImage {
    /// The image composited onto an opaque `background` (R, G, B).
    public func flattened(onto background: [UInt8]) -> DecodedImage {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        let back = background.count == 3 ? background.map(Float.init) : [255, 255, 255]
        for y in 0..<height {
            for x in 0..<width {
                let from = y * bytesPerRow + x * 4
                let to = (y * width + x) * 4
                let alpha = Float(pixels[from + 3]) / 255
                for channel in 0..<3 {
                    out[to + channel] = Resampler.clampToByte(Float(pixels[from + channel]) * alpha + back[channel] * (1 - alpha))
                }
            }
        }
        return DecodedImage(width: width, height: height, pixels: out)
    }
}
