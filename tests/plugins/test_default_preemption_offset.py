"""Where DefaultPreemption's walk over the candidate nodes starts (upstream's
``getOffsetAndNumCandidates``: ``rand.Int31n(len(potentialNodes))``).

ruleset draws the offset from a generator seeded with the pod's namespace and name, so a pod's
walk is the same in ``schedule``, ``score`` and ``explain`` and does not depend on which pods
ran before it; it is 0 when the walk visits every node anyway. Candidates are then listed, and
ties between them broken, in node order, whatever the offset. Upstream's own table for the
offsets (v1.20 ``default_preemption_test.go``, "preemption offset across multiple scheduling
cycles and wrap around") is ported in test_default_preemption_victims.py with its offsets given.
"""

from __future__ import annotations

import random

from tests.plugins.test_default_preemption import FIT, HIGH, LOW, Preemption, node, pod

NODES = [node(f"node{i:03d}", {"cpu": "1", "memory": "1Gi"}) for i in range(150)]
LOWS = [pod(f"low{i:03d}", f"node{i:03d}", LOW, {"cpu": "1"}) for i in range(150)]
ARGS = {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 10}


def test_offset_is_drawn_per_pod_when_the_walk_may_stop_early():
    h = Preemption([FIT], NODES, ARGS)
    p = h.pod(pod("web-0", priority=HIGH, requests={"cpu": "1"}))
    expected = random.Random("ruleset.DefaultPreemption.offset:default/web-0").randrange(150)
    assert h.plugin.offset(p, 150) == expected == 69
    assert h.plugin.offset(p, 10) == 0  # ten candidates wanted of ten: every node is visited


def test_candidates_come_from_the_offset_and_are_listed_in_node_order():
    h = Preemption([FIT], [*NODES, *LOWS], ARGS)
    nominated, _status = h.post_filter(pod("web-0", priority=HIGH, requests={"cpu": "1"}))
    report = h.report(pod("web-0", priority=HIGH, requests={"cpu": "1"}))
    # The walk from node069 takes ten candidates; every one costs one low pod, so the first in
    # node order wins the tie.
    assert [c.node for c in report.candidates] == [f"node{i:03d}" for i in range(69, 79)]
    assert nominated == "node069"
    other = h.report(pod("web-1", priority=HIGH, requests={"cpu": "1"}))
    start = random.Random("ruleset.DefaultPreemption.offset:default/web-1").randrange(150)
    assert [c.node for c in other.candidates] == [f"node{(start + i) % 150:03d}" for i in sorted(
        range(10), key=lambda i: (start + i) % 150)]
