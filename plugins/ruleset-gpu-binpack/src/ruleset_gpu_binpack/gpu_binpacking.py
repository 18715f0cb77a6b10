"""GPUBinPacking (Filter, Score): keep GPU pods on accepted GPU models, and pack GPUs tightly.

* **Filter.** A pod that requests the GPU resource (``resourceName``, ``nvidia.com/gpu`` by
  default; its request as ``NodeResourcesFit`` computes it, init containers included)
  fits only on nodes whose ``labelKey`` label (``nvidia.com/gpu.product``, as NVIDIA's GPU
  feature discovery sets it) is one of ``acceptedModels``. A node without the label is
  rejected with :data:`ERR_REASON_NO_GPU_MODEL`, a node with another model with
  :data:`ERR_REASON_MODEL_NOT_ACCEPTED`; both UnschedulableAndUnresolvable, since evicting
  pods never changes a node's labels. A pod that requests no GPU passes everywhere: this
  plugin has no say over CPU-only pods (keep them off GPU nodes with taints). Whether the
  node has GPUs left is NodeResourcesFit's job, not this plugin's.
* **Score.** kube-scheduler's NodeResourcesMostAllocated for the one resource (v1.20
  ``mostRequestedScore``, weight 1): ``requested * 100 // allocatable`` in integers, where
  ``requested`` is the GPUs of the pods already on the node plus the pod's own request;
  0 when the node has no GPUs allocatable, and 0 when ``requested`` exceeds it (v1.20;
  later releases clamp to 100). For a GPU pod that is exactly ``NodeResourcesMostAllocated``
  with ``resources = [{name = "nvidia.com/gpu", weight = 1}]``. A pod that requests no GPU
  scores 0 on every node, which leaves its ranking to the other plugins: MostAllocated
  would draw it to the nodes whose GPUs are busiest, taking CPU and memory the next GPU
  pod there needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import MAX_NODE_SCORE, ArgError, Code, FilterResult, NodeSet, Plugin, arg_field, hookimpl
from ruleset.api.pod import Pod
from ruleset.api.resources import is_extended_resource
from ruleset.errors import format_path
from ruleset.gofmt import go_quote
from ruleset.selector.validation import label_value_errors, qualified_name_errors

#: The label NVIDIA's GPU feature discovery puts the GPU model in, e.g. ``NVIDIA-A100-SXM4-80GB``.
DEFAULT_LABEL_KEY = "nvidia.com/gpu.product"
#: The extended resource the NVIDIA device plugin advertises.
DEFAULT_RESOURCE_NAME = "nvidia.com/gpu"

ERR_REASON_NO_GPU_MODEL = "node(s) had no GPU model label"
ERR_REASON_MODEL_NOT_ACCEPTED = "node(s) had a GPU model the pod does not accept"

_STRINGS = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True, slots=True)
class GPUBinPackingArgs:
    """The plugin's args; ``acceptedModels`` has no useful default and must be given."""

    label_key: str = arg_field(
        "labelKey", DEFAULT_LABEL_KEY, schema={"type": "string"},
        description="Node label holding the GPU model.")
    accepted_models: tuple[str, ...] = arg_field(
        "acceptedModels", (), schema=_STRINGS,
        description="GPU models (values of labelKey) a GPU pod may run on; at least one.")
    resource_name: str = arg_field(
        "resourceName", DEFAULT_RESOURCE_NAME, schema={"type": "string"},
        description="Extended resource counting GPUs: a pod requesting it is a GPU pod, and Score packs it.")


def _field_error(path: tuple[str | int, ...], kind: str, value: str | None, detail: str) -> ArgError:
    """A ``field.Error`` as Kubernetes prints it: ``<path>: <kind>[: <value>]: <detail>``."""
    text = f"{format_path(path)}: {kind}"
    if value is not None:
        text += f": {go_quote(value)}"
    return ArgError(path, f"{text}: {detail}")


def validate_gpu_binpacking_args(args: GPUBinPackingArgs) -> list[ArgError]:
    """Every problem, in field order: the label key, each model, the resource name."""
    errors: list[ArgError] = []
    if not args.label_key:
        errors.append(_field_error(("labelKey",), "Required value", None, "must name the GPU model label"))
    else:
        errors.extend(_field_error(("labelKey",), "Invalid value", args.label_key, msg)
                      for msg in qualified_name_errors(args.label_key))
    if not args.accepted_models:
        errors.append(_field_error(("acceptedModels",), "Required value", None,
                                   "at least one GPU model must be accepted"))
    seen: set[str] = set()
    for i, model in enumerate(args.accepted_models):
        path = ("acceptedModels", i)
        if not model:
            errors.append(_field_error(path, "Invalid value", model, "must be a GPU model, not empty"))
        elif model in seen:
            errors.append(_field_error(path, "Duplicate value", model, "listed twice"))
        else:
            # A value no label can hold would never match: say so instead of rejecting every node.
            errors.extend(_field_error(path, "Invalid value", model, msg)
                          for msg in label_value_errors(model))
        seen.add(model)
    if not is_extended_resource(args.resource_name):
        errors.append(_field_error(("resourceName",), "Invalid value", args.resource_name,
                                   "must be an extended resource name (a domain-qualified name outside "
                                   "kubernetes.io, e.g. nvidia.com/gpu)"))
    return errors


def most_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """v1.20 ``mostRequestedScore``: ``requested * 100 // capacity``; 0 if capacity is 0 or exceeded."""
    bad = (capacity == 0) | (requested > capacity)
    safe = np.where(bad, 1, capacity)
    return np.where(bad, 0, requested * MAX_NODE_SCORE // safe)


class GPUBinPacking(Plugin):
    """Keeps GPU pods on accepted GPU models (Filter) and packs GPUs onto the busiest nodes (Score)."""

    name = "GPUBinPacking"
    Args = GPUBinPackingArgs

    @classmethod
    def validate_args(cls, args: GPUBinPackingArgs) -> list[ArgError]:
        return validate_gpu_binpacking_args(args)

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        args: GPUBinPackingArgs = self.args
        if pod.requests.get(args.resource_name, 0) <= 0:
            return None
        codes = nodes.label_column(args.label_key)
        table = nodes.snapshot.node_labels
        accepted_codes = [table.code_of(args.label_key, model) for model in args.accepted_models]
        missing = codes < 0
        other_model = ~missing & ~np.isin(codes, accepted_codes)
        # Reason table slot 0 is Success's (no reasons); a node is either missing or other_model.
        reason_index = missing.astype(np.int32) + 2 * other_model.astype(np.int32)
        failed = missing | other_model
        return FilterResult(failed * np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                            [(), (ERR_REASON_NO_GPU_MODEL,), (ERR_REASON_MODEL_NOT_ACCEPTED,)], reason_index)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        resource = self.args.resource_name
        if pod.requests.get(resource, 0) <= 0:
            return np.zeros(len(nodes), dtype=np.int64)
        snapshot = nodes.snapshot
        requested = snapshot.requested(resource)[nodes.indices] + pod.scoring_request(resource)
        return most_requested_score(requested, snapshot.allocatable(resource)[nodes.indices])
