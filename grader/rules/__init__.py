"""What a lab is, what was handed in and how items score: lab.toml and the other configuration files, results, settings, variants, the host's kind. No I/O beyond reading files."""
