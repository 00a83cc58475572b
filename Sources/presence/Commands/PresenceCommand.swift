import ArgumentParser

/// The `presence` command: bulk avatar downloads, image checks, thumbnails, a fixture server,
/// a demo, and benchmarks.
struct PresenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Fetch follower avatars concurrently, prove they are sound images, and make thumbnails.",
        discussion: """
        Exit status: 0 when everything succeeded, 1 when some entries or files failed (the report says \
        which), 2 for usage errors or unreadable input, 130 when interrupted.
        """,
        version: "1.0.0",
        subcommands: [
            FetchCommand.self, CheckCommand.self, ThumbCommand.self, ServeCommand.self, DemoCommand.self,
            GetCommand.self, BenchCommand.self, BenchWorkerCommand.self,
        ]
    )
}
