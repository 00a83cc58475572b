import Foundation
import Presence

/// A grid of every entry's thumbnail, in list order; failed entries are dark red cells with a cross.
enum ContactSheet {
    static func make(report: FetchReport, folder: URL, cell: Int = 64, columns: Int = 20, gap: Int = 4) throws -> Data {
        let rows = max(1, (report.entries.count + columns - 1) / columns)
        let width = columns * (cell + gap) + gap
        let height = rows * (cell + gap) + gap
        var sheet = DecodedImage(width: width, height: height, filledWith: (32, 34, 38, 255))
        let thumbnailer = Thumbnailer()
        let spec = AvatarSpec(size: cell)
        for (position, entry) in report.entries.enumerated() {
            let x = gap + (position % columns) * (cell + gap)
            let y = gap + (position / columns) * (cell + gap)
            if let file = entry.file, let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path),
               let image = try? ImageDecoder().decode(data) {
                blit(thumbnailer.render(image, spec: spec).flattened(onto: [32, 34, 38]), into: &sheet, x: x, y: y)
            } else {
                drawFailure(into: &sheet, x: x, y: y, size: cell)
            }
        }
        return try ImageEncoder.png(sheet, compressionLevel: 6, keepAlpha: false)
    }

    private static func blit(_ image: DecodedImage, into sheet: inout DecodedImage, x: Int, y: Int) {
        for row in 0..<image.height {
            let from = row * image.bytesPerRow
            let to = (y + row) * sheet.bytesPerRow + x * 4
            sheet.pixels.replaceSubrange(to..<(to + image.width * 4), with: image.pixels[from..<(from + image.width * 4)])
        }
    }

    private static func drawFailure(into sheet: inout DecodedImage, x: Int, y: Int, size: Int) {
        for row in 0..<size {
            for column in 0..<size {
                let onCross = abs(row - column) <= 2 || abs(row - (size - 1 - column)) <= 2
                let inset = row > size / 5 && row < size * 4 / 5 && column > size / 5 && column < size * 4 / 5
                let colour: (UInt8, UInt8, UInt8) = onCross && inset ? (255, 235, 235) : (120, 24, 28)
                let offset = (y + row) * sheet.bytesPerRow + (x + column) * 4
                sheet.pixels[offset] = colour.0
                sheet.pixels[offset + 1] = colour.1
                sheet.pixels[offset + 2] = colour.2
                sheet.pixels[offset + 3] = 255
            }
        }
    }
}
