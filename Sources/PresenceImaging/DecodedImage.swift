/// Decoded pixels: 8-bit RGBA, rows top to bottom, **straight (not premultiplied) alpha**.
///
/// A value type; safe to use from any thread.
public struct DecodedImage: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from one row to the next (at least `width * 4`).
    public let bytesPerRow: Int
    /// `height * bytesPerRow` bytes of R, G, B, A.
    public var pixels: [UInt8]

    /// Wraps pixels; `pixels.count` must be `height * bytesPerRow`.
    public init(width: Int, height: Int, bytesPerRow: Int? = nil, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow ?? width * 4
        precondition(pixels.count >= self.bytesPerRow * height, "pixel buffer too small")
        self.pixels = pixels
    }

    /// An image filled with one colour.
    public init(width: Int, height: Int, filledWith rgba: (UInt8, UInt8, UInt8, UInt8)) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = rgba.0
            pixels[index + 1] = rgba.1
            pixels[index + 2] = rgba.2
            pixels[index + 3] = rgba.3
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The pixel at (`x`, `y`) as R, G, B, A.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let offset = y * bytesPerRow + x * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }

    /// Whether any pixel is not fully opaque.
    public var hasTransparency: Bool {
        for y in 0..<height {
            let row = y * bytesPerRow
            for x in 0..<width where pixels[row + x * 4 + 3] != 255 { return true }
        }
        return false
    }
}
