/// One caller's claim on an image being loaded. Cancelling it ends only that caller's wait (its
/// completion gets ``ImageLoadingError/cancelled``); the download itself is cancelled when the
/// last caller waiting for it cancels.
///
/// Thread-safe: ``cancel()`` may be called from any thread, any number of times.
public final class ImageLoadToken: Sendable, Hashable {
    let identifier: Int
    private let onCancel: @Sendable (Int) -> Void

    init(identifier: Int, onCancel: @escaping @Sendable (Int) -> Void) {
        self.identifier = identifier
        self.onCancel = onCancel
    }

    /// Stops waiting for the image.
    public func cancel() {
        onCancel(identifier)
    }

    public static func == (lhs: ImageLoadToken, rhs: ImageLoadToken) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
