import Foundation

/// An encoded avatar thumbnail and what it was made from.
///
/// A value type; safe to use from any thread.
public struct Thumbnail: Sendable, Hashable {
    /// The encoded PNG or JPEG bytes.
    public var data: Data
    /// The thumbnail's pixels (straight alpha), as encoded.
    public var image: DecodedImage
    /// The specification it was made for.
    public var spec: AvatarSpec
    /// The source image's header.
    public var source: ImageInfo
}

/// Makes avatar thumbnails: decode (shrinking JPEGs on load), centre-crop, Lanczos-3 on
/// premultiplied alpha, optional anti-aliased circle, encode.
///
/// A value type; safe to use from any thread; calls may run in parallel.
public struct Thumbnailer: Sendable {
    /// The decoder (and its limits) used for sources.
    public var decoder: ImageDecoder

    /// Creates a thumbnailer.
    public init(decoder: ImageDecoder = ImageDecoder()) {
        self.decoder = decoder
    }

    /// Checks, decodes and thumbnails `bytes` according to `spec`.
    public func thumbnail<Bytes: ContiguousBytes>(from bytes: Bytes, spec: AvatarSpec) throws(ImageError) -> Thumbnail {
        try spec.validate()
        let (image, info) = try decoder.decodeWithInfo(bytes, targetShortSide: spec.size)
        let rendered = render(image, spec: spec)
        return Thumbnail(data: try encode(rendered, spec: spec), image: rendered, spec: spec, source: info)
    }

    /// The thumbnail's pixels before encoding: exactly `spec.size` × `spec.size`, straight alpha.
    public func render(_ image: DecodedImage, spec: AvatarSpec) -> DecodedImage {
        let side = min(image.width, image.height)
        let crop = (x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
        var output = Resampler.resample(image, crop: crop, toWidth: spec.size, height: spec.size)
        if spec.shape == .circle { output.applyCircleMask() }
        return output
    }

    /// Encodes rendered pixels as the spec's output format.
    public func encode(_ image: DecodedImage, spec: AvatarSpec) throws(ImageError) -> Data {
        switch spec.output {
        case .png:
            try ImageEncoder.png(image, compressionLevel: spec.pngCompressionLevel)
        case let .jpeg(quality):
            try ImageEncoder.jpeg(image, quality: quality, progressive: spec.progressiveJPEG, background: spec.background)
        }
    }
}

extension DecodedImage {
    /// Makes everything outside the inscribed circle transparent, with a one-pixel anti-aliased
    /// edge computed from each pixel centre's distance to the circle.
    public mutating func applyCircleMask() {
        let radius = Double(min(width, height)) / 2
        let centerX = Double(width) / 2
        let centerY = Double(height) / 2
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) + 0.5 - centerX
                let dy = Double(y) + 0.5 - centerY
                let coverage = min(1, max(0, radius - (dx * dx + dy * dy).squareRoot() + 0.5))
                guard coverage < 1 else { continue }
                let offset = y * bytesPerRow + x * 4 + 3
                pixels[offset] = UInt8((Double(pixels[offset]) * coverage).rounded())
            }
        }
    }
}
