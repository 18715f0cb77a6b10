"""The VolumeBinding plugin: ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go``
of v1.20, with the binder of :mod:`.binder`; later releases through the switches below.

PreFilter (``podHasPVCs``, then ``GetPodVolumes``), all UnschedulableAndUnresolvable:

* a claim the pod names that does not exist: ``persistentvolumeclaim "x" not found``;
* a claim being deleted: ``persistentvolumeclaim "x" is being deleted``;
* a generic ephemeral volume's claim (``<pod>-<volume>``; where the release's
  GenericEphemeralVolume gate is on) that the pod does not control:
  ``persistentvolumeclaim "x" was not created for the pod``;
* an unbound claim the PV controller should bind (class not WaitForFirstConsumer, or a
  claim naming its volume): ``pod has unbound immediate PersistentVolumeClaims``.

A pod with no claims is not checked at Filter. Filter runs the binder's ``FindPodVolumes``
on every node (UnschedulableAndUnresolvable with its reasons, see :mod:`.binder`); Reserve
assumes the bindings found for the chosen node in the snapshot's volume store, so the next
pod sees them, Unreserve restores them; PreBind makes them final. Upstream's PreBind writes
the bindings to the API server and waits (``bindTimeoutSeconds``) for the PV controller to
finish them, failing if it undoes them: in a simulation nothing else touches the objects, so
those checks always pass and the timeout never runs out.

When the snapshot holds no storage object at all (the input had none), the plugin checks
nothing: every pod is treated as if it had no claims.

Not modelled: Score (VolumeCapacityPriority 1.21 and StorageCapacityScoring 1.33 are alpha
gates, off by default: the plugin scores 0 everywhere upstream). From 1.27 PreFilter returns
Skip for a pod without claims (the same outcome: its Filter would pass every node).

From 1.27 to 1.31 (:data:`ELIGIBLE_NODES`) PreFilter also returns a
:class:`~ruleset.PreFilterResult` for a pod with bound claims: the nodes their volumes' node
affinity names by ``kubernetes.io/hostname In``, the label's values taken as node names. Where
a node's hostname label differs from its name, upstream then never finds the node
(kubernetes#123465: "nodeinfo not found" up to 1.29, unschedulable in 1.30 and 1.31), and so
does ruleset at those releases; 1.32 dropped the result (kubernetes#127584, also in patch
releases such as 1.29.11, which a release number here cannot tell apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ruleset import (
    OTHER_PODS_IGNORED,
    ArgError,
    Code,
    CycleState,
    FilterResult,
    NodeSet,
    Plugin,
    PreFilterResult,
    Status,
    Target,
    hookimpl,
)
from ruleset.api.pod import Pod
from ruleset.api.storage import PersistentVolume, PersistentVolumeClaim, pod_claims
from ruleset.kversion import GATES, Switch, switch

# The args and their checks are apart (ruleset validate reads them without this module's numpy).
from ruleset.plugins.volumebinding import args as args_module
from ruleset.plugins.volumebinding.args import (  # noqa: F401 - re-exported
    BIND_TIMEOUT_ZERO,
    DEFAULT_BIND_TIMEOUT_SECONDS,
    SCORING_GATES,
    VolumeBindingArgs,
)
from ruleset.plugins.volumebinding.binder import (
    ERR_REASON_PV_NOT_EXIST,
    ERR_REASON_PV_NOT_EXIST_NODES,
    BinderError,
    BinderOptions,
    PodVolumeClaims,
    PodVolumes,
    assume_pod_volumes,
    bind_pod_volumes,
    find_pod_volumes,
    get_pod_volumes,
    is_controlled_by,
    revert_assumed_pod_volumes,
)
from ruleset.snapshot import VolumeStore

NAME = "VolumeBinding"
STATE_KEY = NAME
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
HOSTNAME_LABEL = "kubernetes.io/hostname"

_PLUGIN_GO = "pkg/scheduler/framework/plugins/volumebinding/volume_binding.go"
_BINDER_GO = "pkg/scheduler/framework/plugins/volumebinding/binder.go"


ELIGIBLE_NODES = switch(
    "VolumeBinding.prefilter-result", "1.27",
    "PreFilter returns the nodes the pod's bound claims' volumes name (each volume's node affinity terms "
    "with kubernetes.io/hostname In, whose values are taken as node names; intersected over the "
    "volumes), so only those nodes are filtered", f"{_PLUGIN_GO} (PreFilter), {_BINDER_GO} "
    "(GetEligibleNodes), pkg/volume/util/util.go (GetLocalPersistentVolumeNodeNames), kubernetes#109877; "
    "removed in 1.32 by kubernetes#127584 (and in patch releases, 1.29.11 among them)", until="1.32")


def eligible_nodes(store: VolumeStore, bound: list[PersistentVolumeClaim]) -> frozenset[str] | None:
    """``GetEligibleNodes``: the intersection, over the bound claims whose volume names nodes, of
    those names (None when none does, or when a claim's volume is missing)."""
    eligible: frozenset[str] | None = None
    for claim in bound:
        volume = store.volumes.get(claim.volume_name)
        if volume is None:
            return None  # upstream collects the lookup errors, then gives up on narrowing
        names = local_volume_node_names(volume)
        if names:
            eligible = names if eligible is None else eligible & names
    return eligible


def local_volume_node_names(volume: PersistentVolume) -> frozenset[str]:
    """``GetLocalPersistentVolumeNodeNames``: over the volume's required node affinity terms, the
    union of each term's ``kubernetes.io/hostname`` ``In`` values (intersected within the term);
    a term without one adds nothing."""
    out: frozenset[str] = frozenset()
    for term in volume.node_affinity or ():
        names: frozenset[str] | None = None
        for requirement in term.match_expressions:
            if requirement.key == HOSTNAME_LABEL and requirement.operator == "In":
                values = frozenset(requirement.values)
                names = values if names is None else names & values
        out |= names or frozenset()
    return out


def _gated(key: str, since: str, summary: str, reference: str, gate: str) -> Switch:
    """A switch following feature gate ``gate`` (which came before 1.20 as alpha, off) once
    :mod:`ruleset.kversion.gates` knows it; until then the release where its default turned
    on (``since``), which gives the same answers for profiles that set no gates."""
    if gate in GATES:
        return switch(key, "1.20", summary, reference, gate=gate)
    return switch(key, since, summary, reference)


EPHEMERAL = _gated(
    "VolumeBinding.generic-ephemeral-volumes", "1.21",
    "generic ephemeral volumes are claims (<pod>-<volume>, owned by the pod): checked like the pod's "
    "persistentVolumeClaim volumes (GenericEphemeralVolume beta)",
    f"{_PLUGIN_GO} (podHasPVCs); {_BINDER_GO} (isVolumeBound)", "GenericEphemeralVolume")
STORAGE_CAPACITY = _gated(
    "VolumeBinding.storage-capacity", "1.21",
    "a claim to provision needs a CSIStorageCapacity of its class, reachable from the node and big "
    "enough, when its CSI driver has storageCapacity: true (\"node(s) did not have enough free storage\")",
    f"{_BINDER_GO} (hasEnoughCapacity)", "CSIStorageCapacity")
MAXIMUM_VOLUME_SIZE = switch(
    "VolumeBinding.maximum-volume-size", "1.21",
    "a CSIStorageCapacity's maximumVolumeSize, when set, is the limit a new volume is compared with "
    "(before: its capacity)", f"{_BINDER_GO} (capacitySufficient, volumeLimit)")
PV_NOT_EXIST_NODES = switch(
    "VolumeBinding.pv-not-exist-reason", "1.23",
    f"a bound claim whose volume is missing gives \"{ERR_REASON_PV_NOT_EXIST_NODES}\" "
    f"(before: \"{ERR_REASON_PV_NOT_EXIST}\")", f"{_BINDER_GO} (ErrReasonPVNotExist), kubernetes#105196")
LOST_CLAIM = switch(
    "VolumeBinding.lost-claim", "1.23",
    "PreFilter refuses a claim in phase Lost: persistentvolumeclaim \"x\" bound to non-existent "
    "persistentvolume \"y\" (UnschedulableAndUnresolvable)", f"{_PLUGIN_GO} (podHasPVCs), kubernetes#105245")
EPHEMERAL_MESSAGES = switch(
    "VolumeBinding.ephemeral-messages", "1.23",
    "a missing ephemeral claim reads \"waiting for ephemeral volume controller to create the "
    "persistentvolumeclaim \\\"x\\\"\"; one the pod does not own \"PVC ns/x was not created for pod ns/p "
    "(pod is not owner)\"",
    f"{_PLUGIN_GO} (podHasPVCs), component-helpers/storage/ephemeral, kubernetes#104605")
PRE_FILTER_SKIP = switch(
    "VolumeBinding.prefilter-skip", "1.27",
    "PreFilter returns Skip for a pod without claims (its Filter is not run; the same outcome)",
    f"{_PLUGIN_GO} (PreFilter: framework.NewStatus(framework.Skip) when podHasPVCs finds none)")
PRE_SCORE_SKIP = switch(
    "VolumeBinding.prescore-skip", "1.30",
    "PreScore returns Skip (no scorer: its gates are off), so its Score (0 on every node) is not run "
    "and the plugin is listed as skipped",
    f"{_PLUGIN_GO} (PreScore: framework.NewStatus(framework.Skip) when pl.scorer == nil)")


_SKIP = Status(Code.SKIP)


@dataclass
class StateData:
    """``stateData``: written at PreFilter, shared by the later points (never copied)."""

    skip: bool = False
    claims: PodVolumeClaims = field(default_factory=PodVolumeClaims)
    all_bound: bool = False
    #: The binder's decisions per node name, from Filter.
    volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)


class VolumeBinding(Plugin):
    """Places pods where their PersistentVolumeClaims can be bound or provisioned and their bound
    volumes' node affinity holds, and binds them (PreFilter, Filter, Reserve, PreBind).

    Upstream v1.20 ``volume_binding.go`` and ``scheduler_binder.go``: see the module docstrings.
    """

    name = NAME
    Args = VolumeBindingArgs
    #: The plugin has Score from 1.21, which the default configuration enables only with a
    #: scoring gate until multiPoint (1.23) enables it with weight 1: 0 on every node, the
    #: scorer being nil with the gates off. PreScore (Skip) came in 1.30.
    points_since: ClassVar[Mapping[str, str]] = {"score": "1.23", "preScore": "1.30"}

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        target = self.handle.target
        scoring = [gate for gate in SCORING_GATES if target.gate(gate)]
        if scoring:
            raise ValueError(f"VolumeBinding's scoring under the {scoring[0]} feature gate is not modelled "
                             "by ruleset (leave the gate off)")
        self._eligible_nodes = target.has(ELIGIBLE_NODES)
        self._options = BinderOptions(
            ephemeral=target.has(EPHEMERAL), capacity=target.has(STORAGE_CAPACITY),
            maximum_volume_size=target.has(MAXIMUM_VOLUME_SIZE),
            pv_not_exist_reason=ERR_REASON_PV_NOT_EXIST_NODES if target.has(PV_NOT_EXIST_NODES)
            else ERR_REASON_PV_NOT_EXIST)
        self._lost_claim = target.has(LOST_CLAIM)
        self._ephemeral_messages = target.has(EPHEMERAL_MESSAGES)
        self._no_claims = Status(Code.SKIP) if target.has(PRE_FILTER_SKIP) else None

    @classmethod
    def validate_args_for(cls, args: VolumeBindingArgs, target: Target) -> list[ArgError]:
        """v1.20's ``validateArgs``, from 1.21 ``ValidateVolumeBindingArgs`` (:mod:`.args`)."""
        return args_module.validate_args_for(args, target)

    # ------------------------------------------------------------------ PreFilter
    def _claims_problem(self, pod: Pod) -> tuple[bool, str | None]:
        """``podHasPVCs``: whether the pod has claims, and why it cannot use them (or None)."""
        store = self._store()
        has_claims = False
        for ref in pod_claims(pod.name, pod.volumes, ephemeral=self._options.ephemeral):
            has_claims = True
            claim = store.claims.get(f"{pod.namespace}/{ref.claim_name}")
            if claim is None:
                if ref.ephemeral and self._ephemeral_messages:
                    return True, ("waiting for ephemeral volume controller to create the "
                                  f'persistentvolumeclaim "{ref.claim_name}"')
                return True, f'persistentvolumeclaim "{ref.claim_name}" not found'
            if self._lost_claim and claim.phase == "Lost":
                return True, (f'persistentvolumeclaim "{claim.meta.name}" bound to non-existent '
                              f'persistentvolume "{claim.volume_name}"')
            if claim.meta.deletion_timestamp is not None:
                return True, f'persistentvolumeclaim "{claim.meta.name}" is being deleted'
            if ref.ephemeral and not is_controlled_by(claim, pod):
                if self._ephemeral_messages:
                    return True, (f"PVC {claim.meta.namespace}/{claim.meta.name} was not created for pod "
                                  f"{pod.namespace}/{pod.name} (pod is not owner)")
                return True, f'persistentvolumeclaim "{claim.meta.name}" was not created for the pod'
        return has_claims, None

    def _store(self) -> VolumeStore:
        """The snapshot's volume store (the binder's assume caches)."""
        snapshot = self.handle.snapshot
        assert snapshot is not None, "VolumeBinding runs on a framework built over a snapshot"
        return snapshot.storage

    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod) -> Status | PreFilterResult | None:
        store = self._store()
        if store.is_empty():
            state.write(STATE_KEY, StateData(skip=True))
            return self._no_claims
        has_claims, problem = self._claims_problem(pod)
        if problem is not None:
            return Status.unresolvable(problem)
        if not has_claims:
            state.write(STATE_KEY, StateData(skip=True))
            return self._no_claims
        try:
            claims = get_pod_volumes(store, pod, self._options)
        except BinderError as exc:
            return Status.error(str(exc))
        if claims.immediate:
            return Status.unresolvable(ERR_UNBOUND_IMMEDIATE)
        state.write(STATE_KEY, StateData(claims=claims))
        if self._eligible_nodes:
            eligible = eligible_nodes(store, claims.bound)
            if eligible is not None:
                return PreFilterResult(eligible)
        return None

    # --------------------------------------------------------------------- Filter
    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, state: CycleState, nodes: NodeSet) -> FilterResult | None:
        data: StateData | None = state.get(STATE_KEY)
        if data is None:
            return FilterResult.error(len(nodes), "not found")
        if data.skip:
            return None
        outcomes = find_pod_volumes(self._store(), data.claims, nodes, self._options)
        names = nodes.names
        for name, outcome in zip(names, outcomes, strict=True):
            if outcome.volumes is not None and outcome.error is None and not outcome.reasons:
                data.volumes_by_node[name] = outcome.volumes
        return FilterResult.from_statuses([outcome.status() for outcome in outcomes])

    # ------------------------------------------------------------ Reserve, Unreserve
    # ------------------------------------------------------------- PreScore, Score
    @hookimpl
    def ruleset_pre_score(self) -> Status:
        return _SKIP

    @hookimpl
    def ruleset_score(self, nodes: NodeSet) -> np.ndarray:
        """``Score`` without a scorer (its gates off): 0 on every node."""
        return np.zeros(len(nodes), dtype=np.int64)

    @hookimpl
    def ruleset_reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        data: StateData | None = state.get(STATE_KEY)
        if data is None:
            return Status.error("not found")
        volumes = data.volumes_by_node.get(node)
        if volumes is None:
            data.all_bound = True  # the pod has no claims
            return None
        data.all_bound = assume_pod_volumes(self._store(), pod, node, volumes, self._options)
        return None

    @hookimpl
    def ruleset_unreserve(self, state: CycleState, node: str) -> None:
        data: StateData | None = state.get(STATE_KEY)
        if data is None:
            return
        volumes = data.volumes_by_node.get(node)
        if volumes is not None:
            revert_assumed_pod_volumes(self._store(), volumes)

    # -------------------------------------------------------------------- PreBind
    @hookimpl
    def ruleset_pre_bind(self, state: CycleState, node: str) -> Status | None:
        data: StateData | None = state.get(STATE_KEY)
        if data is None:
            return Status.error("not found")
        if data.all_bound:
            return None
        volumes = data.volumes_by_node.get(node)
        if volumes is None:
            return Status.error(f'no pod volumes found for node "{node}"')
        bind_pod_volumes(self._store(), volumes)
        return None


