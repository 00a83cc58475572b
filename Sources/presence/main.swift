import ArgumentParser
import Foundation

// Exit statuses: 0 success; 1 some entries or files failed; 2 usage errors and unreadable input;
// 130 interrupted (after finishing writes and the report).
/// Runs an async command's `run() async` (an existential would pick the synchronous overload).
func runAsync<Command: AsyncParsableCommand>(_ command: Command) async throws {
    var command = command
    try await command.run()
}

do {
    var command = try PresenceCommand.parseAsRoot()
    if let asyncCommand = command as? any AsyncParsableCommand {
        try await runAsync(asyncCommand)
    } else {
        try command.run()
    }
} catch let exit as ExitStatus {
    Foundation.exit(exit.code)
} catch let failure as CommandFailure {
    Console.error(failure.message)
    Foundation.exit(failure.exitCode)
} catch {
    let code = PresenceCommand.exitCode(for: error)
    if code == .success {
        PresenceCommand.exit(withError: error)  // --help, --version
    }
    // Usage errors: ArgumentParser would use 64; this tool promises 2.
    Console.error(PresenceCommand.fullMessage(for: error))
    Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
}
