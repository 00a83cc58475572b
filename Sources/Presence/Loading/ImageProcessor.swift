import Foundation

/// The decode stage: turns downloaded bytes into an ``ImageResponse`` by checking and decoding
/// them, then making the request's thumbnail (or keeping the upright original).
///
/// A value type; safe to use from any thread; calls may run in parallel.
public struct ImageProcessor: Sendable {
    /// The thumbnailer (and, through it, the decoder and its limits).
    public let thumbnailer: Thumbnailer

    /// Creates the stage.
    public init(thumbnailer: Thumbnailer = Thumbnailer()) {
        self.thumbnailer = thumbnailer
    }

    /// Decodes and processes `downloaded` for `request`.
    public func process(_ downloaded: DownloadedData, for request: ImageRequest) -> Result<ImageResponse, ImageLoadingError> {
        do throws(ImageError) {
            if let spec = request.spec {
                try spec.validate()
                let (image, info) = try thumbnailer.decoder.decodeWithInfo(downloaded.data, targetShortSide: spec.size)
                let rendered = thumbnailer.render(image, spec: spec)
                let encoded = try thumbnailer.encode(rendered, spec: spec)
                return .success(ImageResponse(
                    request: request, image: rendered, data: encoded, info: info, source: downloaded.source,
                    isStale: downloaded.isStale, bytesReceived: downloaded.bytesReceived
                ))
            }
            let (image, info) = try thumbnailer.decoder.decodeWithInfo(downloaded.data)
            return .success(ImageResponse(
                request: request, image: image, data: downloaded.data, info: info, source: downloaded.source,
                isStale: downloaded.isStale, bytesReceived: downloaded.bytesReceived
            ))
        } catch {
            return .failure(.image(error))
        }
    }
}
