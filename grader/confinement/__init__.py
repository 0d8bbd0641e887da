"""Running untrusted code: this machine's isolation, the sandbox, the call boundary's two processes and the sealed result channel."""
