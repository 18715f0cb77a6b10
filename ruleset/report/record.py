"""Per-plugin score records of a ``schedule`` run, kept only when a report asks for them.

:class:`ScoreRecorder` is the ``record`` callback of :func:`ruleset.scheduler.schedule_all`:
called with each scheduling cycle's result, it folds the cycle's score table into running
sums, so its memory is nodes × plugins whatever the number of pods. Without ``--report`` no
recorder is passed and nothing here runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.scheduler.cycle import ScheduleResult


@dataclass
class ScoreRecorder:
    """What the report's heatmap and placement table need of each cycle that chose a node.

    For each node and Score plugin: the sum of the plugin's weighted score (normalised score
    × weight) over the cycles that scored the node, and how many cycles did; for each node,
    how many cycles chose it; for each pod, its last chosen node's weighted scores and its
    margin over the runner-up. A cycle that chose a node without scoring (a single feasible
    node, or no Score plugin) adds nothing but the pod's entry. Plugins are keyed by name,
    in the order first seen, so several profiles share columns.
    """

    node_names: list[str]
    plugins: list[str] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)
    sums: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    chosen: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    pods: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.node_names)
        self.sums = np.zeros((n, 0), dtype=np.int64)
        self.counts = np.zeros((n, 0), dtype=np.int64)
        self.chosen = np.zeros(n, dtype=np.int64)
        self._index = {name: i for i, name in enumerate(self.node_names)}

    def _column(self, plugin: str, weight: int) -> int:
        if plugin not in self.weights:
            self.plugins.append(plugin)
            self.weights[plugin] = weight
            pad = np.zeros((len(self.node_names), 1), dtype=np.int64)
            self.sums = np.hstack((self.sums, pad))
            self.counts = np.hstack((self.counts, pad))
        return self.plugins.index(plugin)

    def __call__(self, pod: Pod, result: ScheduleResult) -> None:
        """Fold one cycle in (the ``record`` callback of ``schedule_all``)."""
        if result.node is None:
            return
        table, feasible, chosen = result.scores, result.feasible, self._index[result.node]
        self.chosen[chosen] += 1
        entry: dict[str, Any] = {"node": result.node, "weighted": {}, "margin": None}
        if table is not None and len(feasible):
            rows = np.asarray(feasible, dtype=np.intp)
            at = int(np.flatnonzero(rows == chosen)[0])
            columns = zip(table.plugins, table.weights, table.normalized, strict=True)
            for plugin, weight, normalized in columns:
                column = self._column(plugin, weight)
                weighted = np.asarray(normalized, dtype=np.int64) * weight
                self.sums[rows, column] += weighted
                self.counts[rows, column] += 1
                entry["weighted"][plugin] = int(weighted[at])
            if len(rows) > 1:
                others = np.delete(np.asarray(table.total, dtype=np.int64), at)
                entry["margin"] = int(table.total[at]) - int(others.max())
        self.pods[pod.key] = entry

    def to_json(self) -> dict[str, Any]:
        """``{"plugins": [{"name", "weight"}], "nodes": [{"name", "chosen", "scored", "mean"}],
        "pods": {key: {"node", "weighted": {plugin: int}, "margin"}}}``: ``mean`` holds, per
        plugin, the mean weighted score over the cycles that scored the node with it (None
        when none did); ``scored`` is the most cycles any plugin scored the node in."""
        nodes = []
        for i, name in enumerate(self.node_names):
            counts = self.counts[i]
            means = [round(float(self.sums[i, j]) / int(counts[j]), 2) if counts[j] else None
                     for j in range(len(self.plugins))]
            nodes.append({"name": name, "chosen": int(self.chosen[i]),
                          "scored": int(counts.max()) if len(counts) else 0, "mean": means})
        return {"plugins": [{"name": p, "weight": self.weights[p]} for p in self.plugins],
                "nodes": nodes, "pods": self.pods}

