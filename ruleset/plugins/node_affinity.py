"""NodeAffinity (Filter, Score, NormalizeScore; PreFilter from 1.21): the pod's nodeSelector
and node affinity.

``nodeaffinity/node_affinity.go`` with ``component-helpers/scheduling/corev1/nodeaffinity``
of v1.20; later releases through the switches below.

Filter, in this order, both UnschedulableAndUnresolvable:

1. ``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution`` (the plugin arg) must
   match, else ``node(s) didn't match scheduler-enforced node affinity``;
2. every ``spec.nodeSelector`` key=value must be a node label, and
3. ``requiredDuringSchedulingIgnoredDuringExecution`` of the pod, when set, must match,
   else ``node(s) didn't match Pod's node affinity``.

A node selector is the OR of its terms. A term with neither matchExpressions nor
matchFields is skipped, so a list of only empty terms (or no terms) matches nothing. In a
term the matchExpressions (In, NotIn, Exists, DoesNotExist, Gt, Lt) and the matchFields
are ANDed. matchFields take In or NotIn with exactly one value, compared with the node's
fields, of which only ``metadata.name`` exists (any other key reads as ""). A term that
does not parse never matches (the pod's parse errors are otherwise ignored).

Score: Σ weight of the matching preferred terms, the pod's and ``addedAffinity``'s; terms
with weight 0 or an empty preference are skipped. A pod whose preferred terms do not parse
fails the cycle with an Error, as upstream. NormalizeScore is
``DefaultNormalizeScore(100, reverse=false)``: ``100 * score / max`` (integer division).

Upstream's PreFilter (from 1.21, kubernetes#99213) parses what its Filter would otherwise
parse; here it does nothing before 1.27. From 1.27 (:data:`PRE_FILTER_SKIP`) it returns Skip for a
pod with no ``spec.nodeSelector``, no required node affinity and no ``addedAffinity`` required
terms: the framework then does not run its Filter. Upstream tests ``pod.Spec.NodeSelector ==
nil``; a decoded pod cannot tell an absent nodeSelector from an empty one (``{}``), and both
skip here. That is what a pod read from the API server gives (its storage drops an empty map),
and Filter passes every node for either, so only whether Filter ran can differ. From 1.24
(:data:`PRE_FILTER_RESULT`, kubernetes#108648) it returns a :class:`~ruleset.PreFilterResult`: the
node names of the pod's required terms when every term has ``metadata.name`` ``In`` fields (a
DaemonSet's pods), so only those nodes are filtered (what that changes, release by release, is
in :mod:`ruleset.scheduler.cycle`), and "pod affinity terms conflict" when they name no node:
as soon as one term's do up to 1.26, only when all together do from 1.27
(:data:`CONFLICT_WHEN_ALL_TERMS_CONFLICT`, kubernetes#116465). ``nodeSelector`` and
``addedAffinity`` never narrow it (upstream decided so in kubernetes#113657).

Args: ``addedAffinity``, a ``v1.NodeAffinity``, validated like ``ValidateNodeAffinityArgs``
of v1.20 (``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: Invalid value:
<the value, Go %#v>: <parse errors>``). Everything is evaluated for all candidate nodes at
once: label terms with :meth:`~ruleset.selector.Selector.match_table` over the node label
table, ``metadata.name`` fields by node index. No Go map is iterated here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ruleset import (
    MAX_NODE_SCORE,
    OTHER_PODS_IGNORED,
    ArgError,
    Code,
    CycleState,
    FilterResult,
    NodeSet,
    Plugin,
    PreFilterResult,
    Status,
    hookimpl,
    switch,
)
from ruleset.api.pod import NodeAffinity as NodeAffinitySpec
from ruleset.api.pod import NodeSelectorTerm, Pod, PreferredSchedulingTerm
from ruleset.plugins.helper.normalize import default_normalize_score

# The args, their checks and the term parsing they share are apart (ruleset validate reads them
# without this module's numpy).
from ruleset.plugins.node_affinity_args import (  # noqa: F401 - re-exported
    NodeAffinityArgs,
    go_node_selector,
    go_preferred_terms,
    validate_node_affinity_args,
)
from ruleset.plugins.node_affinity_terms import (  # noqa: F401 - re-exported
    FieldRequirement,
    ParsedTerm,
    aggregate_message,
    parse_term,
    preferred_terms,
    selector_terms,
)
from ruleset.selector import from_set

NAME = "NodeAffinity"
#: ``ErrReasonPod`` of v1.20 (later versions append "/selector").
ERR_REASON_POD = "node(s) didn't match Pod's node affinity"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
#: The only field a node has for matchFields (``extractNodeFields``).
NODE_NAME_FIELD = "metadata.name"

PRE_FILTER_SKIP = switch(
    "NodeAffinity.prefilter-skip", "1.27",
    "PreFilter returns Skip for a pod with no nodeSelector, no required node affinity and no "
    "addedAffinity required terms: its Filter is not run",
    "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (PreFilter, kubernetes#114125)")
_SKIP = Status(Code.SKIP)
PRE_FILTER_RESULT = switch(
    "NodeAffinity.prefilter-result", "1.24",
    "PreFilter returns the node names of the pod's required terms when every term has matchFields "
    "metadata.name In (within a term intersected, across terms united): only those nodes are filtered; "
    "a term whose names intersect to none refuses the pod, UnschedulableAndUnresolvable \"pod affinity "
    "terms conflict\"", "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (PreFilter, "
    "kubernetes#108648)")
CONFLICT_WHEN_ALL_TERMS_CONFLICT = switch(
    "NodeAffinity.prefilter-conflict-all-terms", "1.27",
    "\"pod affinity terms conflict\" only when the names of every term together are none (before: as "
    "soon as one term's names intersect to none, even when a later term could match)",
    "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (PreFilter, kubernetes#116465)")
#: ``errReasonConflict``.
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))


def named_nodes(terms: Sequence[NodeSelectorTerm],
                conflict_per_term: bool) -> PreFilterResult | Status | None:
    """PreFilter's ``PreFilterResult``: the node names of ``terms`` when each has a ``metadata.name``
    ``In`` field (a term's fields intersected, the terms united), None when one has none (the
    terms are ORed: every node may match); "pod affinity terms conflict" when they name no
    node: as soon as one term's fields do (``conflict_per_term``, 1.24–1.26), else when all
    together do."""
    names: frozenset[str] | None = None
    for term in terms:
        mine: frozenset[str] | None = None
        for requirement in term.match_fields:
            if requirement.key == "metadata.name" and requirement.operator == "In":
                values = frozenset(requirement.values)
                mine = values if mine is None else mine & values
        if mine is None:
            return None
        if conflict_per_term and not mine:
            return _CONFLICT
        names = mine if names is None else names | mine
    if names is None:
        return None
    return PreFilterResult(names) if names else _CONFLICT


class NodeAffinityError(Exception):
    """The pod's preferred terms do not parse (upstream fails Score with this text)."""


# ---------------------------------------------------------------------------------------------
# Parsed node selector terms
# ---------------------------------------------------------------------------------------------


def term_mask(term: ParsedTerm, nodes: NodeSet) -> np.ndarray:
    """``nodeSelectorTerm.match`` for every node of ``nodes``."""
    if term.error is not None:
        return np.zeros(len(nodes), dtype=bool)
    mask = np.ones(len(nodes), dtype=bool)
    if term.labels is not None:
        mask &= nodes.match(term.labels)
    for field in term.fields or ():
        # Every node has a name, so its field set is never empty and the fields always count.
        if field.key == NODE_NAME_FIELD:
            index = nodes.snapshot.node_index.get(field.value, -1)
            equal = nodes.indices == index
        else:
            equal = np.full(len(nodes), field.value == "", dtype=bool)
        mask &= ~equal if field.negated else equal
    return mask


class NodeSelectorMatcher:
    """``nodeaffinity.LazyErrorNodeSelector``: OR of the non-empty terms of a node selector."""

    def __init__(self, terms: Sequence[NodeSelectorTerm]):
        self.terms = selector_terms(terms)

    @property
    def errors(self) -> list[str]:
        """Parse errors, in term order (what ``NewNodeSelector`` reports)."""
        return [t.error for t in self.terms if t.error is not None]

    def match(self, nodes: NodeSet) -> np.ndarray:
        out = np.zeros(len(nodes), dtype=bool)
        for term in self.terms:
            if term.error is None:
                out |= term_mask(term, nodes)
        return out


class PreferredTerms:
    """``nodeaffinity.PreferredSchedulingTerms``: weighted terms, zero weights and empty terms skipped."""

    def __init__(self, terms: Sequence[PreferredSchedulingTerm]):
        self.terms: list[tuple[int, ParsedTerm]] = []
        self.errors: list[str] = []
        for weight, parsed in preferred_terms(terms):
            if parsed.error is not None:
                self.errors.append(parsed.error)
            else:
                self.terms.append((weight, parsed))

    def score(self, nodes: NodeSet) -> np.ndarray:
        """Σ weight of the matching terms, per node."""
        total = np.zeros(len(nodes), dtype=np.int64)
        for weight, term in self.terms:
            total += np.where(term_mask(term, nodes), np.int64(weight), np.int64(0))
        return total


def pod_matches_node_selector_and_affinity(pod: Pod, nodes: NodeSet) -> np.ndarray:
    """``PodMatchesNodeSelectorAndAffinityTerms`` of v1.20 for every node of ``nodes``."""
    ok = np.ones(len(nodes), dtype=bool)
    if pod.node_selector:
        ok &= nodes.match(from_set(pod.node_selector))  # SelectorFromSet: exact key=value
    affinity = pod.affinity.node_affinity
    if affinity is not None and affinity.required is not None:
        ok &= NodeSelectorMatcher(affinity.required).match(nodes)
    return ok


class NodeAffinity(Plugin):
    """Keeps pods on nodes matching their nodeSelector and required node affinity (Filter) and
    favours nodes matching their preferred terms (Score)."""

    name = NAME
    Args = NodeAffinityArgs
    points_since: ClassVar[Mapping[str, str]] = {"preFilter": "1.21"}

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        self._pre_filter_skip = self.handle.target.has(PRE_FILTER_SKIP)
        self._pre_filter_result = self.handle.target.has(PRE_FILTER_RESULT)
        self._conflict_per_term = not self.handle.target.has(CONFLICT_WHEN_ALL_TERMS_CONFLICT)
        added: NodeAffinitySpec | None = self.args.added_affinity
        self._added_required: NodeSelectorMatcher | None = None
        self._added_preferred: PreferredTerms | None = None
        if added is not None:
            if added.required is not None:
                self._added_required = NodeSelectorMatcher(added.required)
            if added.preferred:
                self._added_preferred = PreferredTerms(added.preferred)

    @classmethod
    def validate_args(cls, args: NodeAffinityArgs) -> list[ArgError]:
        """``ValidateNodeAffinityArgs`` of v1.20 (:mod:`ruleset.plugins.node_affinity_args`)."""
        return validate_node_affinity_args(args)

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_pre_filter(self, pod: Pod) -> Status | PreFilterResult | None:
        """Skip (1.27 on) when nothing constrains the pod's nodes; the node names its required
        terms allow (1.24 on), or their conflict; otherwise nothing to do here (upstream's
        PreFilter state is the parse Filter does)."""
        affinity = pod.affinity.node_affinity
        required = affinity.required if affinity is not None else None
        if required is None:
            if not self._pre_filter_skip or self._added_required is not None or pod.node_selector:
                return None
            return _SKIP
        return named_nodes(required, self._conflict_per_term) if self._pre_filter_result else None

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        affinity = pod.affinity.node_affinity
        if (self._added_required is None and not pod.node_selector
                and (affinity is None or affinity.required is None)):
            return None  # nothing constrains the pod's nodes (see pod_matches_node_selector_and_affinity)
        enforced = np.zeros(len(nodes), dtype=bool)
        if self._added_required is not None:
            enforced = ~self._added_required.match(nodes)
        failed = ~enforced & ~pod_matches_node_selector_and_affinity(pod, nodes)
        if not enforced.any() and not failed.any():
            return None
        codes = np.where(enforced | failed, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                         np.int8(Code.SUCCESS)).astype(np.int8)
        reason_index = np.where(enforced, 1, np.where(failed, 2, 0)).astype(np.int32)
        return FilterResult(codes, [(), (ERR_REASON_ENFORCED,), (ERR_REASON_POD,)], reason_index)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        scores = np.zeros(len(nodes), dtype=np.int64)
        if self._added_preferred is not None:
            scores += self._added_preferred.score(nodes)
        affinity = pod.affinity.node_affinity
        if affinity is not None and affinity.preferred:
            terms = PreferredTerms(affinity.preferred)
            if terms.errors:
                raise NodeAffinityError(aggregate_message(terms.errors))
            scores += terms.score(nodes)
        return scores

    @hookimpl
    def ruleset_normalize_score(self, scores: np.ndarray) -> np.ndarray:
        if type(scores) is np.ndarray and scores.dtype == np.int64 and scores.ndim == 1 \
                and not np.count_nonzero(scores):
            return scores.copy()  # a pod without preferences: all 0, which normalizing leaves as they are
        return default_normalize_score(MAX_NODE_SCORE, False, scores)
