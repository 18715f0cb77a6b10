"""200 varied, valid profiles for the speed test (and for measuring by hand).

``python tests/validate/profiles_for_speed.py DIR`` writes them to DIR. Each differs from the
others (weights, args, rules, extends), so no per-configuration cache can make them all one.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

LABELS = ["zone", "ssd", "gpu", "spot", "arch", "tier", "rack", "pool"]


def profile_text(i: int, rng: random.Random) -> str:
    lines = [f'name = "speed-{i:03d}"', f'description = "generated profile {i}"']
    # Kubernetes 1.20: NodeLabel, NodeResourcesLeastAllocated and RequestedToCapacityRatio are
    # gone from 1.23 on.
    if i % 3 == 0:
        lines.append('extends = "default-1.20"')
    else:
        lines.append('kubernetesVersion = "1.20"')
        lines.append(f"percentageOfNodesToScore = {rng.randint(0, 100)}")
        for plugin in ("PrioritySort", "NodeUnschedulable", "NodeName", "NodePorts"):
            lines += ["", f"[plugins.{plugin}]"]
        lines += ["", "[plugins.TaintToleration]", f"weight = {rng.randint(1, 5)}"]
        lines += ["", "[plugins.NodeResourcesFit]",
                  f'args = {{ ignoredResources = ["example.com/r{i}"] }}']
        lines += ["", "[plugins.NodeResourcesBalancedAllocation]", f"weight = {rng.randint(1, 3)}"]
        lines += ["", "[plugins.ImageLocality]", f"weight = {rng.randint(1, 3)}"]
        lines += ["", "[plugins.DefaultBinder]"]
    present, absent = rng.sample(LABELS, 2), rng.sample(LABELS, 2)
    lines += ["", "[plugins.NodeLabel]", f"weight = {rng.randint(1, 10)}",
              f'args = {{ presentLabelsPreference = ["{present[0]}-{i}"], '
              f'absentLabelsPreference = ["{absent[1]}"] }}']
    lines += ["", "[plugins.NodeResourcesLeastAllocated]", f"weight = {rng.randint(1, 4)}",
              f'args = {{ resources = [{{ name = "cpu", weight = {rng.randint(1, 100)} }}, '
              f'{{ name = "memory", weight = {rng.randint(1, 100)} }}] }}']
    if i % 2:
        lines += ["", "[plugins.RequestedToCapacityRatio]", "weight = 1",
                  f"args = {{ shape = [{{ utilization = 0, score = {rng.randint(0, 10)} }}, "
                  f"{{ utilization = 100, score = {rng.randint(0, 10)} }}] }}"]
    for r in range(i % 4):
        lines += ["", "[[rules]]", f'name = "rule-{r}"', f'pods = "app in (web-{i}, api)"',
                  f'prefer = "{rng.choice(LABELS)}={r}"', f"weight = {rng.randint(1, 9)}"]
    return "\n".join(lines) + "\n"


def write_profiles(folder: Path, count: int = 200, seed: int = 0) -> list[Path]:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"speed-{i:03d}.toml"
        path.write_text(profile_text(i, rng), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    write_profiles(Path(sys.argv[1]))
