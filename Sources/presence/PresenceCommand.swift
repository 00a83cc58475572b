import ArgumentParser

/// The `presence` command: bulk avatar downloads, image checks, thumbnails, a fixture server and benchmarks.
struct PresenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Fetch follower avatars concurrently, prove they are sound images, and make thumbnails."
    )
}
