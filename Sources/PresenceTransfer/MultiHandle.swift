import CCurl

/// The session's curl multi handle.
///
/// `curl_multi_wakeup` is documented as callable from any thread; everything else on the handle
/// is used only by the network thread. `Session.shared`'s lock orders ``wakeUp()`` against
/// ``cleanUp()``, which is why this wrapper may be `@unchecked Sendable`.
struct MultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    init(configuration: SessionConfiguration) {
        guard let handle = curl_multi_init() else {
            preconditionFailure("curl_multi_init failed: out of memory")
        }
        raw = handle
        let perHost = max(1, configuration.httpMaximumConnectionsPerHost)
        _ = presence_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        _ = presence_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, max(configuration.maximumIdleConnections, perHost))
        // HTTP/1.1 only: no pipelining, no multiplexing, so a connection carries one transfer.
        _ = presence_multi_setopt_long(raw, CURLMOPT_PIPELINING, 0)
    }

    /// Wakes the network thread from `curl_multi_poll`. Any thread; call under `Session.shared`'s lock.
    func wakeUp() {
        curl_multi_wakeup(raw)
    }

    /// Frees the handle. Network thread only, as its last act, under `Session.shared`'s lock state
    /// `loopHasExited` so that no wake-up follows.
    func cleanUp() {
        curl_multi_cleanup(raw)
    }
}
