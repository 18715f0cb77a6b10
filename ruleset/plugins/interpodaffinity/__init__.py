"""InterPodAffinity (PreFilter + AddPod/RemovePod, Filter, PreScore, Score, NormalizeScore), as v1.20.

**Terms.** Every ``podAffinityTerm`` becomes an :class:`AffinityTerm`: the namespaces it
selects (``namespaces``, or the owning pod's own namespace when that list is empty), its
selector (``LabelSelectorAsSelector``: a nil selector selects nothing, ``{}`` everything) and
its topology key. A pod *matches* a term when its namespace is one of the term's and its
labels satisfy the selector. As v1.20's ``framework.NewPodInfo``, a selector that does not
convert drops its whole list (required affinity, required anti-affinity, preferred
affinity, preferred anti-affinity: an assigned pod's broken list is silently ignored) and
records ``"<list>: <error>"``; when several lists fail, the last one in that order wins.
From 1.21 (gate PodAffinityNamespaceSelector, on from 1.22) a term's ``namespaceSelector``
also selects namespaces, and with one the owning pod's namespace is no longer implied; the
snapshot has no Namespace objects, so a namespace's labels are taken to be
``kubernetes.io/metadata.name=<name>`` (see :mod:`.terms`).

**PreFilter** (``filtering.go``) rejects a pod whose own terms do not convert with
UnschedulableAndUnresolvable ``parsing pod: <list>: <error>``. Otherwise it counts, per
topology pair (a label key and the value a node has for it), over every assigned pod E on a
node N that carries the term's key:

* existing anti-affinity: +1 at (key, N[key]) for each of E's required anti-affinity terms
  the incoming pod matches;
* affinity: if E matches *all* the incoming pod's required affinity terms, +1 at
  (key, N[key]) for each of those terms;
* anti-affinity: +1 at (key, N[key]) for each of the incoming pod's required anti-affinity
  terms that E matches.

AddPod/RemovePod (preemption dry runs, nominated pods) apply the same three rules to one pod
with +1/-1; a pair whose count reaches 0 is gone, as upstream deletes it from its map.

**Filter** checks, per node, in v1.20's order (the first failure decides):

1. affinity: the node lacks one of the terms' keys, or some term's pair on the node has no
   count; except that when *no* pair was counted at all and the pod matches all its own
   terms (the first pod of a group that wants to be together), a node carrying every key
   passes. Failure: UnschedulableAndUnresolvable, ``node(s) didn't match pod
   affinity/anti-affinity`` + ``node(s) didn't match pod affinity rules``;
2. anti-affinity: some term's pair on the node has a count. Unschedulable,
   ``...affinity/anti-affinity`` + ``node(s) didn't match pod anti-affinity rules``;
3. existing pods' anti-affinity: one of the node's own label pairs has a count.
   Unschedulable, ``...affinity/anti-affinity`` + ``node(s) didn't satisfy existing pods
   anti-affinity rules``.

From 1.22 (``InterPodAffinity.one-filter-reason``, kubernetes#102518) each failure carries its
precise reason only, without ``node(s) didn't match pod affinity/anti-affinity``.

**PreScore/Score** (``scoring.go``): over every assigned pod E on a node N carrying the
term's key, add at (key, N[key]): +w for each incoming preferred affinity term E matches,
-w for each incoming preferred anti-affinity term E matches, +hardPodAffinityWeight for
each of E's required affinity terms the incoming pod matches (only when the weight is > 0),
+w / -w for each of E's preferred affinity / anti-affinity terms the incoming pod matches.
A node's score is the sum, over the keys that received anything, of the value at its own
label for that key. The pairs cover the whole cluster, not just the feasible nodes.
From 1.28 (``InterPodAffinity.prescore-skip``, kubernetes#117794) PreScore returns Skip when no
pair was counted (or there is no node to score): the plugin is left out of the node's scores.
With ``ignorePreferredTermsOfExistingPods = true`` (an arg from 1.27, kubernetes#114393), a pod
without preferred affinity or anti-affinity terms is not scored at all: PreScore returns before
looking at any existing pod (not even at their required affinity terms), leaving every node 0
at 1.27 and returning Skip from 1.28. A pod with preferred terms is scored as without the arg:
existing pods' preferred terms still count (upstream's code, whatever the arg's name suggests).

**NormalizeScore** is v1.20's: when nothing was counted the scores stay as they are (all 0);
otherwise ``min = min(0, scores)``, ``max = max(0, scores)`` (anchored at 0; v1.21 uses the
true minimum) and a score becomes ``int64(100 * (float64(s-min) / float64(max-min)))``, or 0
when ``max == min``. The float expression is evaluated in Go's order, so 100*(29/100) gives
28 exactly where Go does.

**Args:** ``hardPodAffinityWeight`` (default 1), 0..100; ``ignorePreferredTermsOfExistingPods``
(1.27 on, default false; a profile of an earlier release that writes it is refused with
``arg-not-in-release``).

**How it is computed.** Pair counts are one int64 array per topology key, indexed by the
code of the node label value (the node label vocabulary is fixed for a run). Pods of one
template share their converted terms (one ``PodInfo`` per shape: terms and namespace). For the
incoming pod's terms, the counts of the assigned pods matching each tuple of terms are kept
between cycles (:mod:`.matched`: each pod-table row is matched once, and only rows whose node
changed since the last look are moved); the terms of assigned pods that declare affinity are
kept in an append-only index (pod table rows are never reused) with their sums per term kept
the same way, so a cycle evaluates each distinct term once against the incoming pod
(remembered for the last pod, which PreScore reuses after PreFilter) and adds the sums of the
terms it matches. When the snapshot's generation advanced by exactly the number of rows
appended, no other row changed and only the new rows are looked at.

**Nondeterminism.** Upstream sums per-node maps built in parallel and iterates maps in
Filter and Score; every result is an integer sum or an "any", which does not depend on the
order, so there is nothing to choose.

Upstream's ``pkg/scheduler/framework/plugins/interpodaffinity``: :mod:`.filtering`
(PreFilter, AddPod/RemovePod, Filter), :mod:`.scoring` (PreScore, Score, NormalizeScore) and
:mod:`.plugin` (the plugin and its args); :mod:`.terms` holds the converted terms of v1.20's
``framework.PodInfo`` and the index of assigned pods' terms.
"""

from ruleset.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.plugins.interpodaffinity.filtering import (
        ERR_REASON_AFFINITY_NOT_MATCH,
        ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        PRE_FILTER_STATE_KEY,
        PreFilterState,
        TopologyCounts,
        existing_anti_affinity_counts,
        incoming_affinity_counts,
    )
    from ruleset.plugins.interpodaffinity.plugin import InterPodAffinity, InterPodAffinityArgs
    from ruleset.plugins.interpodaffinity.scoring import PRE_SCORE_STATE_KEY, PreScoreState, normalize
    from ruleset.plugins.interpodaffinity.terms import AffinityTerm, PodInfo, WeightedAffinityTerm, pod_info

#: Each name -> its module, imported when the name is first read: importing one module of the
#: package (its args, for ``ruleset validate``) imports no other.
_EXPORTS = {
    "ERR_REASON_AFFINITY_NOT_MATCH": "ruleset.plugins.interpodaffinity.filtering",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH": "ruleset.plugins.interpodaffinity.filtering",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH": "ruleset.plugins.interpodaffinity.filtering",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH": "ruleset.plugins.interpodaffinity.filtering",
    "PRE_FILTER_STATE_KEY": "ruleset.plugins.interpodaffinity.filtering",
    "PreFilterState": "ruleset.plugins.interpodaffinity.filtering",
    "TopologyCounts": "ruleset.plugins.interpodaffinity.filtering",
    "existing_anti_affinity_counts": "ruleset.plugins.interpodaffinity.filtering",
    "incoming_affinity_counts": "ruleset.plugins.interpodaffinity.filtering",
    "InterPodAffinity": "ruleset.plugins.interpodaffinity.plugin",
    "InterPodAffinityArgs": "ruleset.plugins.interpodaffinity.plugin",
    "PRE_SCORE_STATE_KEY": "ruleset.plugins.interpodaffinity.scoring",
    "PreScoreState": "ruleset.plugins.interpodaffinity.scoring",
    "normalize": "ruleset.plugins.interpodaffinity.scoring",
    "AffinityTerm": "ruleset.plugins.interpodaffinity.terms",
    "PodInfo": "ruleset.plugins.interpodaffinity.terms",
    "WeightedAffinityTerm": "ruleset.plugins.interpodaffinity.terms",
    "pod_info": "ruleset.plugins.interpodaffinity.terms",
}

__all__ = [
    "ERR_REASON_AFFINITY_NOT_MATCH",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "AffinityTerm",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "PodInfo",
    "PreFilterState",
    "PreScoreState",
    "TopologyCounts",
    "WeightedAffinityTerm",
    "existing_anti_affinity_counts",
    "incoming_affinity_counts",
    "normalize",
    "pod_info",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
