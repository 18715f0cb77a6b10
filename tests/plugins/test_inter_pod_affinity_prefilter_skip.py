"""InterPodAffinity's PreFilter Skip (1.27 on, the ``InterPodAffinity.prefilter-skip`` switch).

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go`` (PreFilter) at
v1.27 (read in a vendored v1.27.16 tree; absent from v1.26.15's): Skip when the pod has no
required affinity or anti-affinity term and no existing pod's required anti-affinity matches
it; the framework then runs neither its Filter nor its AddPod/RemovePod. Cases written here
from that code (upstream's filtering_test.go checks the PreFilter statuses of its table
through the same rule; ported here are the three shapes that decide it).
"""

from __future__ import annotations

import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from tests.factories import decode, make_node, make_pod
from tests.plugins.noderesources_kit import VersionHarness


def anti(app: str) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}


NODES = [make_node("n1", labels={"kubernetes.io/hostname": "n1"}),
         make_node("n2", labels={"kubernetes.io/hostname": "n2"})]
GUARD = make_pod("guard", node_name="n1", labels={"app": "guard"}, affinity=anti("web"))


@pytest.mark.parametrize(("version", "existing", "incoming", "code"), [
    pytest.param("1.27", [], make_pod("p", labels={"app": "web"}), Code.SKIP, id="1.27 nothing to filter: Skip"),
    pytest.param("1.34", [GUARD], make_pod("p", labels={"app": "db"}), Code.SKIP,
                 id="an existing anti-affinity that does not match the pod: Skip"),
    pytest.param("1.34", [GUARD], make_pod("p", labels={"app": "web"}), Code.SUCCESS,
                 id="an existing anti-affinity matching the pod: filtered"),
    pytest.param("1.34", [], make_pod("p", affinity=anti("web")), Code.SUCCESS,
                 id="the pod's own required term: filtered"),
    pytest.param("1.26", [], make_pod("p", labels={"app": "web"}), Code.SUCCESS, id="1.26: no Skip"),
    pytest.param(None, [], make_pod("p", labels={"app": "web"}), Code.SUCCESS, id="1.20: no Skip"),
])
def test_pre_filter_skips_a_pod_with_nothing_to_filter(version, existing, incoming, code):
    h = VersionHarness(["InterPodAffinity"], [*NODES, *existing], version)
    plugin = h.framework.plugins["InterPodAffinity"]
    status = plugin.ruleset_pre_filter(CycleState(), decode(incoming), h.snapshot)
    assert (status.code if status is not None else Code.SUCCESS) == code


def test_a_skipped_pod_ignores_a_nominated_pods_anti_affinity_as_upstream_does():
    """The visible difference: AddPod is not run for a skipped plugin, so a nominated pod's
    required anti-affinity against the incoming pod does not keep it off that node (1.27 on)."""
    nominated = decode(make_pod("nominee", labels={"app": "guard"}, affinity=anti("web")))
    incoming = decode(make_pod("p", labels={"app": "web"}))
    answers = {}
    for version in ("1.26", "1.27"):
        h = VersionHarness(["InterPodAffinity"], NODES, version)
        state = CycleState()
        pre = h.framework.run_pre_filter(state, incoming, h.snapshot)
        assert pre.is_success
        with h.snapshot.what_if():
            h.snapshot.add_pod(nominated, 0)
            assert h.framework.run_pre_filter_add_pod(state, incoming, nominated, 0, h.snapshot).is_success
            answers[version] = h.framework.run_filters_on_node(state, incoming, 0, h.snapshot,
                                                               with_nominated=False).code
    assert answers == {"1.26": Code.UNSCHEDULABLE, "1.27": Code.SUCCESS}
