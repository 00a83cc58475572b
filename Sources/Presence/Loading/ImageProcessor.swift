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
                let thumbnail = try thumbnailer.thumbnail(from: downloaded.data, spec: spec)
                return .success(ImageResponse(
                    request: request, image: thumbnail.image, data: thumbnail.data, info: thumbnail.source,
                    source: downloaded.source, isStale: downloaded.isStale, bytesReceived: downloaded.bytesReceived
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
