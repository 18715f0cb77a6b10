"""Helpers shared by the built-in plugins (upstream's ``pkg/scheduler/framework/plugins/helper``).

Not plugins: :mod:`~ruleset.plugins.helper.normalize` holds the score normalization and
Go's integer division, :mod:`~ruleset.plugins.helper.spread` the selector of a pod's
Services and controllers and the per-node count of pods matching a selector.
"""
