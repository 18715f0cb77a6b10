"""PodTopologySpread (PreFilter + AddPod/RemovePod, Filter, PreScore, Score, NormalizeScore), v1.20.

A pod's ``topologySpreadConstraints`` (or, when it has none, the plugin's default
constraints with ``DefaultSelector(pod)`` as selector — Services, ReplicationControllers,
ReplicaSets and StatefulSets selecting the pod — and none at all when that selector is
empty) spread matching pods of the pod's namespace (terminating pods excluded) over the
values of a node label.

Filter (``DoNotSchedule`` constraints). PreFilter counts, per topology pair (key, value),
the matching pods. A pair exists for the values of nodes that match the pod's
``nodeSelector``/required node affinity and carry every constraint's key; then the pods of
*every* node whose pair exists are counted (v1.20 counts pods on nodes the pod's affinity
excludes; v1.24 stopped; a node without the key reads as value "", Go's missing map
entry). Per key the two smallest counts are kept as "critical paths".
A node missing a key is UnschedulableAndUnresolvable ``node(s) didn't match pod topology
spread constraints (missing required label)``; otherwise, constraint by constraint,
``count(pair) + selfMatch - min(key) > maxSkew`` is Unschedulable ``node(s) didn't match pod
topology spread constraints``. The AddPod/RemovePod extensions (nominated pods,
preemption dry runs) update the counts and critical paths of a cloned state.

Score (``ScheduleAnyway`` constraints). Nodes missing a key are ignored (score 0). For the
others ``score = Σ cnt·log(size+2) + (maxSkew-1)`` in float64, truncated to int64, where
``cnt`` is the matching pods on the node itself for ``kubernetes.io/hostname`` and on the
whole pair otherwise (pods of nodes matching the pod's node affinity and carrying every
key), and ``size`` the number of values among the scored nodes (for hostname: the scored,
not ignored, nodes). ``log`` is Go's ``math.Log``, ported, which differs from the C
library's in the last bit for about 1% of arguments. NormalizeScore: ignored nodes 0;
``max == 0`` gives 100; otherwise ``100·(max+min-s)/max`` (int64 division), min and max
over the non-ignored nodes.

Args (PodTopologySpreadArgs, v1beta1): ``defaultConstraints`` and ``defaultingType``. An
empty ``defaultingType`` becomes ``List`` when constraints are given, else ``System``
(the DefaultPodTopologySpread gate is on in v1.20); ``System`` uses hostname maxSkew 3 and
zone maxSkew 5, both ``ScheduleAnyway``.

Deterministic choices where Go iterates a map: critical paths are built by visiting each
key's pairs in ascending order of the value, so ties keep the alphabetically first value
(upstream's tests compare paths modulo that order). v1.20's ``updateWithPod`` dereferences
a nil counter (a scheduler panic, kubernetes#110726) when a pod is added or removed on a
node whose pair was never created, i.e. a node the pod's node affinity excludes with a
value no eligible node has; here that update is skipped, which is what upstream does since
the fix (kubernetes#110853).

Later releases (switches in :mod:`.versions`, read once when the plugin is built): from 1.24
Filter counts one pass over the nodes carrying every key and matching the pod's node affinity
(of constraints sharing a key, a node's count is the last one's) and ``minDomains`` (gate) sets
the global minimum to 0 while fewer domains are eligible; from 1.25 (gate)
``nodeAffinityPolicy``/``nodeTaintsPolicy`` (defaults Honor/Ignore) choose per constraint which
nodes count, in Filter and Score; from 1.28 a pod without hard constraints (its own, or the
defaults) gets Skip from PreFilter (its Filter and AddPod/RemovePod are then not run) and one
without soft constraints Skip from PreScore; from 1.33 each constraint counts on its own.

Upstream's ``pkg/scheduler/framework/plugins/podtopologyspread``, file for file:
:mod:`.common` (constraints and defaults), :mod:`.filtering` (PreFilter, AddPod/RemovePod,
Filter), :mod:`.scoring` (PreScore, Score, NormalizeScore), :mod:`.plugin` (the plugin and
its args, with :mod:`.args`); :mod:`.helpers` holds Go's ``math.Log`` and the node
affinity mask.
"""

from ruleset.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.plugins.podtopologyspread.args import (
        SYSTEM_DEFAULT_CONSTRAINTS,
        DefaultConstraint,
        PodTopologySpreadArgs,
        validate_pod_topology_spread_args,
    )
    from ruleset.plugins.podtopologyspread.common import MAX_INT32, SpreadConstraint
    from ruleset.plugins.podtopologyspread.filtering import (
        ERR_REASON_CONSTRAINTS_NOT_MATCH,
        ERR_REASON_NODE_LABEL_NOT_MATCH,
        PRE_FILTER_STATE_KEY,
        PreFilterState,
        build_critical_paths,
        new_critical_paths,
        update_critical_paths,
    )
    from ruleset.plugins.podtopologyspread.plugin import PodTopologySpread
    from ruleset.plugins.podtopologyspread.scoring import PRE_SCORE_STATE_KEY, PreScoreState

#: Each name -> its module, imported when the name is first read: importing one module of the
#: package (its args, for ``ruleset validate``) imports no other.
_EXPORTS = {
    "SYSTEM_DEFAULT_CONSTRAINTS": "ruleset.plugins.podtopologyspread.args",
    "DefaultConstraint": "ruleset.plugins.podtopologyspread.args",
    "PodTopologySpreadArgs": "ruleset.plugins.podtopologyspread.args",
    "validate_pod_topology_spread_args": "ruleset.plugins.podtopologyspread.args",
    "MAX_INT32": "ruleset.plugins.podtopologyspread.common",
    "SpreadConstraint": "ruleset.plugins.podtopologyspread.common",
    "ERR_REASON_CONSTRAINTS_NOT_MATCH": "ruleset.plugins.podtopologyspread.filtering",
    "ERR_REASON_NODE_LABEL_NOT_MATCH": "ruleset.plugins.podtopologyspread.filtering",
    "PRE_FILTER_STATE_KEY": "ruleset.plugins.podtopologyspread.filtering",
    "PreFilterState": "ruleset.plugins.podtopologyspread.filtering",
    "build_critical_paths": "ruleset.plugins.podtopologyspread.filtering",
    "new_critical_paths": "ruleset.plugins.podtopologyspread.filtering",
    "update_critical_paths": "ruleset.plugins.podtopologyspread.filtering",
    "PodTopologySpread": "ruleset.plugins.podtopologyspread.plugin",
    "PRE_SCORE_STATE_KEY": "ruleset.plugins.podtopologyspread.scoring",
    "PreScoreState": "ruleset.plugins.podtopologyspread.scoring",
}

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "MAX_INT32",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "DefaultConstraint",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "PreFilterState",
    "PreScoreState",
    "SpreadConstraint",
    "build_critical_paths",
    "new_critical_paths",
    "update_critical_paths",
    "validate_pod_topology_spread_args",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
