"""Helpers for the KubeSchedulerConfiguration import/export tests."""

from ruleset.framework.points import POINT_KEYS
from ruleset.framework.runtime import Framework


def effective(profile, registry):
    """What a profile runs: per extension point the plugins in order (Score with weights), and each
    plugin's args with the defaults filled in."""
    framework = Framework(profile, registry)
    points = {
        point: [
            (n, framework.configs[n].weight if point == "score" else None)
            for n in framework.configs
            if point in framework.points[n]
        ]
        for point in POINT_KEYS
    }
    args = {}
    for name, config in framework.configs.items():
        cls = registry.get(name)
        args[name] = cls.args_to_dict(cls.parse_args(config.args))
    return points, args
