"""Answers built on runs: why a pod landed where it did, what changes between profiles, how many more fit."""
