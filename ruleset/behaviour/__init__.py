"""``ruleset test``: behavioural tests for profiles (the file format is in :mod:`ruleset.behaviour.model`)."""
