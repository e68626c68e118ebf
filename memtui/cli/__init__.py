"""The command line: ``memtui [PATH]`` opens the app; subcommands work headless."""
