import Foundation
import Testing
@testable import PresenceImaging

@Suite("Format sniffing and refusals")
struct FormatTests {
    @Test("magic bytes identify formats", arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], ImageFormat.png),
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0], .jpeg),
        (Array("GIF89a....".utf8), .gif),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
        (Array("BM..............".utf8), .bmp),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        ([0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0], .avif),
        ([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0], .heif),
        (Array("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".utf8), .svg),
        (Array("  <!DOCTYPE html><html><body>Rate limit exceeded</body></html>".utf8), .html),
        (Array("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>".utf8), .xml),
        (Array("{\"errors\":[{\"code\":88}]}".utf8), .json),
        ([0x00, 0x01, 0x02, 0x03], .unknown),
    ] as [([UInt8], ImageFormat)])
    func sniff(bytes: [UInt8], format: ImageFormat) {
        #expect(ImageFormat.sniff(bytes) == format)
    }

    @Test("GIF and WebP from the corpora are recognised and refused by name")
    func animatedFormatsRefused() async throws {
        try await offThePool {
            let files = corpusFiles("animated-gif-webp", extensions: ["gif", "webp"])
            #expect(files.count == 8)
            for file in files {
                let expected: ImageFormat = file.pathExtension == "gif" ? .gif : .webp
                #expect(throws: ImageError.unsupportedFormat(expected)) { try ImageDecoder().decode(Data(contentsOf: file)) }
            }
        }
    }

    @Test("an HTML error page served as an image reads as that, with an excerpt")
    func htmlIsNotAnImage() {
        let page = Array("<!DOCTYPE html><html><head><title>503</title></head><body>Over capacity</body></html>".utf8)
        #expect(throws: ImageError.notAnImage(.html, excerpt: "<!DOCTYPE html><html><head><title>503</title></head><body>Over capacity</body></html>")) {
            try ImageDecoder().decode(page)
        }
        #expect(throws: ImageError.notAnImage(.unknown, excerpt: "Service unavailable")) {
            try ImageDecoder().decode(Array("Service unavailable".utf8))
        }
        #expect(throws: ImageError.empty) { try ImageDecoder().decode([UInt8]()) }
    }
}
