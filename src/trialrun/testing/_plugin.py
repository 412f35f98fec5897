"""The pytest plugin, loaded through the `pytest11` entry point (work in progress)."""
