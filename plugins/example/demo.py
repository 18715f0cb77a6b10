"""Schedule the demo cluster with the default profile, with the default plus each example plugin
alone, and with profile.toml (all three), then print where each pod went and check it.

    pip install plugins/ruleset-gpu-binpack plugins/ruleset-cost plugins/ruleset-coscheduling
    python plugins/example/demo.py

Exit status 0 when every placement is the one EXPECTED lists, 1 otherwise (so CI can run it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
PROFILE = HERE / "profile.toml"
CLUSTER = HERE / "cluster.yaml"
PODS = ["ml/train-a-0", "ml/train-b-0", "shop/web-0", "shop/web-1",
        "batch/etl-0", "batch/etl-1", "batch/etl-2"]
#: Where each pod lands per run (None: not scheduled). A plugin's change moves later pods too:
#: with GPUBinPacking the GPU pods leave t4-1 empty, and the web pods take it.
EXPECTED: dict[str, list[str | None]] = {
    #                 train-a   train-b   web-0     web-1     etl-0     etl-1     etl-2
    "default":       ["t4-1",   "t4-1",   "a100-2", "spot-1", "a100-2", "t4-1",   None],
    "+GPUBinPacking": ["a100-1", "a100-1", "t4-1",   "t4-1",   "t4-1",   "a100-2", None],
    "+CostAware":    ["t4-1",   "t4-1",   "spot-1", "spot-1", "spot-1", "std-1",  None],
    "+Coscheduling": ["t4-1",   "t4-1",   "a100-2", "spot-1", None,     None,     None],
    "profile.toml":  ["a100-1", "a100-1", "spot-1", "spot-1", None,     None,     None],
}


def toml_value(value: object) -> str:
    """A TOML value for what profile.toml's plugin tables hold (strings, numbers, bools, lists, tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def default_plus(plugin: str, folder: Path) -> Path:
    """A profile: the default, plus ``plugin`` configured as profile.toml configures it."""
    tables = tomllib.loads(PROFILE.read_text(encoding="utf-8"))["plugins"]
    lines = [f'name = "default-plus-{plugin}"', 'extends = "default-1.20"', "", f"[plugins.{plugin}]"]
    lines += [f"{key} = {toml_value(value)}" for key, value in tables[plugin].items()]
    if plugin == "Coscheduling":  # a second QueueSort replaces PrioritySort
        lines += ["", "[plugins.PrioritySort]", "enabled = false"]
    path = folder / f"default-plus-{plugin}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def placements(profile: str | Path) -> list[str | None]:
    command = [sys.executable, "-m", "ruleset", "schedule", "--profile", str(profile),
               "--cluster", str(CLUSTER), "--output", "json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    nodes = {p["pod"]: p["node"] for p in json.loads(done.stdout)["placements"]}
    return [nodes.get(pod) for pod in PODS]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = {"default": placements("default")}
        for plugin in ("GPUBinPacking", "CostAware", "Coscheduling"):
            runs[f"+{plugin}"] = placements(default_plus(plugin, folder))
        runs["profile.toml"] = placements(PROFILE)
    width = max(len(name) for name in runs) + 2
    print("pod".ljust(14) + "".join(name.ljust(width) for name in runs))
    for i, pod in enumerate(PODS):
        print(pod.ljust(14) + "".join((nodes[i] or "-").ljust(width) for nodes in runs.values()))
    wrong = [name for name, nodes in runs.items() if nodes != EXPECTED[name]]
    for name in wrong:
        print(f"\n{name}: expected {EXPECTED[name]}, got {runs[name]}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
