import ArgumentParser
import Foundation
import PresenceFixtures

/// `presence serve`: the local avatar server with a generated follower list, until Ctrl-C.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the local avatar server with a generated follower list (stops cleanly on Ctrl-C).",
        discussion: "Avatars are a mix of PNG and JPEG, 48 to 1600 pixels, some with alpha. Binds 127.0.0.1 only."
    )

    @Option(help: "Port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 0

    @Option(help: "Followers in the generated list.")
    var followers: Int = 500

    @Option(help: "Time to first byte for every avatar, in milliseconds.")
    var latency: Int = 0

    @Option(help: "Percentage of entries that fail (fault routes and malformed fields), 0-100.")
    var faults: Int = 0

    @Option(help: "Seed of the generated world; the same seed gives the same followers.")
    var seed: UInt64 = 1

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard followers >= 1 else { throw ValidationError("--followers must be at least 1.") }
        guard latency >= 0 else { throw ValidationError("--latency cannot be negative.") }
        guard (0...100).contains(faults) else { throw ValidationError("--faults must be between 0 and 100.") }
    }

    func run() async throws {
        let server: FixtureServer
        do {
            server = try await FixtureServer.start(port: port)
        } catch {
            throw CommandFailure(message: "cannot listen on 127.0.0.1:\(port): \(error)")
        }
        var options = FollowerWorld.Options()
        options.count = followers
        options.latencyMilliseconds = latency
        options.faultPercent = faults
        options.seed = seed
        let world = FollowerWorld(server: server, options: options)
        let stop = AsyncStream<Int32>.makeStream()
        let trap = SignalTrap { stop.continuation.yield($0) }
        Console.out("Serving \(followers) followers on \(server.baseURL.absoluteString)")
        Console.out("  v1.1 list: \(world.listURL.absoluteString)")
        Console.out("  v2 list:   \(server.baseURL.absoluteString)/followers-v2.json")
        Console.out("  URL list:  \(server.baseURL.absoluteString)/followers.txt")
        Console.out("Press Ctrl-C to stop.")
        for await _ in stop.stream { break }
        _ = trap
        try await server.stop()
        let stats = server.stats
        Console.out("Stopped after \(stats.requestsServed) requests on \(stats.connectionsAccepted) connections.")
    }
}
