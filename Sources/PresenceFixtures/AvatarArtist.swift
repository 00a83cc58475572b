import PresenceImaging

/// Draws deterministic, recognisable avatars: a two-colour gradient, a head-and-shoulders
/// silhouette, and (optionally) a transparent background.
///
/// Stateless; safe to use from any thread.
public enum AvatarArtist {
    /// A `size`×`size` avatar for `seed`; transparent around the silhouette when `transparent`.
    public static func draw(size: Int, seed: UInt64, transparent: Bool) -> DecodedImage {
        var random = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt8 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return UInt8(truncatingIfNeeded: random >> 24)
        }
        let top = (next(), next(), next())
        let bottom = (next(), next(), next())
        let figure = (next() / 2, next() / 2, next() / 2)
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        let s = Double(size)
        let headX = s * 0.5, headY = s * 0.38, headR = s * 0.2
        let bodyY = s * 1.05, bodyR = s * 0.42
        for y in 0..<size {
            let t = Double(y) / max(1, s - 1)
            let background = (
                UInt8(Double(top.0) * (1 - t) + Double(bottom.0) * t),
                UInt8(Double(top.1) * (1 - t) + Double(bottom.1) * t),
                UInt8(Double(top.2) * (1 - t) + Double(bottom.2) * t)
            )
            for x in 0..<size {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                let head = headR - ((px - headX) * (px - headX) + (py - headY) * (py - headY)).squareRoot()
                let body = bodyR - ((px - headX) * (px - headX) + (py - bodyY) * (py - bodyY)).squareRoot()
                let coverage = min(1, max(0, max(head, body) + 0.5))
                let offset = (y * size + x) * 4
                if transparent {
                    pixels[offset] = figure.0
                    pixels[offset + 1] = figure.1
                    pixels[offset + 2] = figure.2
                    pixels[offset + 3] = UInt8(coverage * 255)
                } else {
                    pixels[offset] = UInt8(Double(figure.0) * coverage + Double(background.0) * (1 - coverage))
                    pixels[offset + 1] = UInt8(Double(figure.1) * coverage + Double(background.1) * (1 - coverage))
                    pixels[offset + 2] = UInt8(Double(figure.2) * coverage + Double(background.2) * (1 - coverage))
                    pixels[offset + 3] = 255
                }
            }
        }
        return DecodedImage(width: size, height: size, pixels: pixels)
    }
}
