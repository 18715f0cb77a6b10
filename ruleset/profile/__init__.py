"""Profiles: loading, validating and locating TOML scheduling profiles."""
