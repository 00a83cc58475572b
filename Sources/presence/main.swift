import ArgumentParser

PresenceCommand.main()
