extension DecodedImage {
    /// The image turned upright according to EXIF `orientation` (1...8; anything else is 1).
    public func applyingOrientation(_ orientation: Int) -> DecodedImage {
        guard (2...8).contains(orientation) else { return self }
        let swapsAxes = orientation >= 5
        let outWidth = swapsAxes ? height : width
        let outHeight = swapsAxes ? width : height
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        let w = width, h = height
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { destination in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = sy * bytesPerRow + sx * 4
                        let to = (y * outWidth + x) * 4
                        destination[to] = source[from]
                        destination[to + 1] = source[from + 1]
                        destination[to + 2] = source[from + 2]
                        destination[to + 3] = source[from + 3]
                    }
                }
            }
        }
        return DecodedImage(width: outWidth, height: outHeight, pixels: out)
    }
}
