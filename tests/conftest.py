"""Test configuration: hermetic plugin discovery (no third-party entry points)."""

import os

os.environ.setdefault("RULESET_DISABLE_PLUGIN_AUTOLOAD", "1")
