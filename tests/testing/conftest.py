"""pytest's own ``pytester`` fixture, for the tests of the kit's pytest plugin."""

pytest_plugins = ["pytester"]
