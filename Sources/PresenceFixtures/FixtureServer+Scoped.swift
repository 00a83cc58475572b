import Foundation

extension FixtureServer {
    /// Starts a server, runs `body` with it, and stops it afterwards, also when `body` throws.
    public static func withServer<Result>(_ body: (FixtureServer) async throws -> Result) async throws -> Result {
        let server = try await FixtureServer.start()
        do {
            let result = try await body(server)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns its last value.
/// For tests and tools waiting on state another thread changes.
public func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
