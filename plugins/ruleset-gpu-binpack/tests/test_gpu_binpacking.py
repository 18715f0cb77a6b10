"""GPUBinPacking through ruleset's test kit: the conformance checks, the Filter's status on each
node (accepted model, other model, no model label; pods with and without GPUs), the raw and
normalised Score (MostAllocated on the GPU resource, compared with the built-in), the
registration through the entry point, and every args validation message.

Run with the package installed (``pip install plugins/ruleset-gpu-binpack``): the test that
looks the plugin up by name needs its entry point.
"""

from __future__ import annotations

from typing import Any

import pytest
from ruleset_gpu_binpack import (
    ERR_REASON_MODEL_NOT_ACCEPTED,
    ERR_REASON_NO_GPU_MODEL,
    GPUBinPacking,
    ruleset_register_plugins,
)

from ruleset import Code
from ruleset.testing import check_plugin, node, pod, run_plugin

MODEL = "nvidia.com/gpu.product"
GPU = "nvidia.com/gpu"
A100, H100, T4 = "NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "Tesla-T4"
ARGS = {"acceptedModels": [A100, H100]}

OK = (Code.SUCCESS, ())
NO_MODEL = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NO_GPU_MODEL,))
OTHER_MODEL = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_MODEL_NOT_ACCEPTED,))


def gpu_nodes() -> list:
    """a100-4 and a100-8 (4 and 8 GPUs), h100-0 (an accepted model, no GPUs allocatable), t4-4
    (a model not accepted) and cpu (no model label, no GPUs)."""
    return [
        node("a100-4", resources={GPU: 4}, labels={MODEL: A100}),
        node("a100-8", resources={GPU: 8}, labels={MODEL: A100}),
        node("h100-0", labels={MODEL: H100}),
        node("t4-4", resources={GPU: 4}, labels={MODEL: T4}),
        node("cpu"),
    ]


def running() -> list:
    """Two GPUs taken on a100-4, one on a100-8, and a CPU-only pod on a100-8."""
    return [
        pod("train-0", node_name="a100-4", resources={GPU: 2}),
        pod("train-1", node_name="a100-8", resources={GPU: 1}),
        pod("web", node_name="a100-8", cpu="1"),
    ]


def verdicts(run: Any) -> dict[str, tuple[Code, tuple[str, ...]]]:
    return {name: (status.code, status.reasons) for name, status in run.filter.items()}


@pytest.mark.parametrize("args", [
    ARGS,
    {"acceptedModels": [T4], "labelKey": "example.com/gpu-model", "resourceName": "example.com/gpu"},
], ids=["default-keys", "own-keys"])
def test_conforms(args: dict) -> None:
    check_plugin(GPUBinPacking, args=args)


@pytest.mark.parametrize(("requests", "args", "expected"), [
    ({GPU: 1}, ARGS,
     {"a100-4": OK, "a100-8": OK, "h100-0": OK, "t4-4": OTHER_MODEL, "cpu": NO_MODEL}),
    ({GPU: 1}, {"acceptedModels": [T4]},
     {"a100-4": OTHER_MODEL, "a100-8": OTHER_MODEL, "h100-0": OTHER_MODEL, "t4-4": OK, "cpu": NO_MODEL}),
    # No GPU requested: the plugin has no say, even on nodes without the label.
    ({}, ARGS, {"a100-4": OK, "a100-8": OK, "h100-0": OK, "t4-4": OK, "cpu": OK}),
    # A zero request is no request.
    ({GPU: 0}, ARGS, {"a100-4": OK, "a100-8": OK, "h100-0": OK, "t4-4": OK, "cpu": OK}),
    # Another resource counts as the GPU: nvidia.com/gpu is then an ordinary extended resource.
    ({GPU: 1}, {**ARGS, "resourceName": "example.com/gpu"},
     {"a100-4": OK, "a100-8": OK, "h100-0": OK, "t4-4": OK, "cpu": OK}),
    # Models are read from the label the args name; these nodes have none.
    ({GPU: 1}, {**ARGS, "labelKey": "example.com/gpu-model"},
     {"a100-4": NO_MODEL, "a100-8": NO_MODEL, "h100-0": NO_MODEL, "t4-4": NO_MODEL, "cpu": NO_MODEL}),
], ids=["a100-or-h100", "t4-only", "no-gpu", "zero-gpu", "other-resource", "other-label"])
def test_filter(requests: dict, args: dict, expected: dict) -> None:
    incoming = pod("p", cpu="1", resources=requests)
    run = run_plugin(GPUBinPacking, incoming, gpu_nodes(), pods=running(), args=args)
    assert verdicts(run) == expected
    assert run.feasible == [name for name, verdict in expected.items() if verdict == OK]


@pytest.mark.parametrize(("requests", "expected"), [
    # a100-4: (2 + 1) * 100 // 4; a100-8: (1 + 1) * 100 // 8; h100-0: nothing allocatable.
    ({GPU: 1}, {"a100-4": 75, "a100-8": 25, "h100-0": 0}),
    # a100-4: 2 + 2 = 4 of 4 is full; a100-8: 3 * 100 // 8 = 37 (truncated).
    ({GPU: 2}, {"a100-4": 100, "a100-8": 37, "h100-0": 0}),
    # More than a100-4 has left: v1.20 scores an over-requested node 0.
    ({GPU: 3}, {"a100-4": 0, "a100-8": 50, "h100-0": 0}),
], ids=["one-gpu", "two-gpus", "over-requested"])
def test_score_packs_gpus(requests: dict, expected: dict) -> None:
    incoming = pod("p", cpu="1", resources=requests)
    run = run_plugin(GPUBinPacking, incoming, gpu_nodes(), pods=running(), args=ARGS)
    assert run.raw == expected
    assert run.scores == expected  # no NormalizeScore: the raw score is the score


@pytest.mark.parametrize("requests", [{GPU: 1}, {GPU: 2}, {GPU: 3}],
                         ids=["one-gpu", "two-gpus", "over-requested"])
def test_score_is_most_allocated_on_the_gpu(requests: dict) -> None:
    nodes, pods = gpu_nodes()[:3], running()  # the nodes GPUBinPacking's Filter passes for ARGS
    incoming = pod("p", cpu="1", resources=requests)
    ours = run_plugin(GPUBinPacking, incoming, nodes, pods=pods, args=ARGS)
    builtin = run_plugin("NodeResourcesMostAllocated", incoming, nodes, pods=pods,
                         args={"resources": [{"name": GPU, "weight": 1}]})
    assert ours.scores == builtin.scores


def test_a_pod_without_gpus_scores_0_everywhere() -> None:
    """Unlike MostAllocated on the GPU, which would draw the pod to the busiest GPU nodes."""
    incoming = pod("p", cpu="1")
    ours = run_plugin(GPUBinPacking, incoming, gpu_nodes(), pods=running(), args=ARGS)
    builtin = run_plugin("NodeResourcesMostAllocated", incoming, gpu_nodes(), pods=running(),
                         args={"resources": [{"name": GPU, "weight": 1}]})
    assert ours.raw == {"a100-4": 0, "a100-8": 0, "h100-0": 0, "t4-4": 0, "cpu": 0}
    assert builtin.raw == {"a100-4": 50, "a100-8": 12, "h100-0": 0, "t4-4": 0, "cpu": 0}


def test_registers_through_its_entry_point() -> None:
    registered: list[type] = []
    ruleset_register_plugins(registered.append)
    assert registered == [GPUBinPacking]
    incoming = pod("p", resources={GPU: 1})
    run = run_plugin("GPUBinPacking", incoming, gpu_nodes(), pods=running(), args=ARGS)
    assert run.raw == {"a100-4": 75, "a100-8": 25, "h100-0": 0}


QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
               "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
               "'my_value',  or '12345', regex used for validation is "
               "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.mark.parametrize(("args", "expected"), [
    (ARGS, []),
    ({}, [(("acceptedModels",), "acceptedModels: Required value: at least one GPU model must be accepted")]),
    ({"acceptedModels": []},
     [(("acceptedModels",), "acceptedModels: Required value: at least one GPU model must be accepted")]),
    ({"acceptedModels": [A100, "", A100]},
     [(("acceptedModels", 1), 'acceptedModels[1]: Invalid value: "": must be a GPU model, not empty'),
      (("acceptedModels", 2), f'acceptedModels[2]: Duplicate value: "{A100}": listed twice')]),
    ({"acceptedModels": ["A100 80GB"]},
     [(("acceptedModels", 0), f'acceptedModels[0]: Invalid value: "A100 80GB": {LABEL_VALUE}')]),
    ({**ARGS, "labelKey": ""}, [(("labelKey",), "labelKey: Required value: must name the GPU model label")]),
    ({**ARGS, "labelKey": "gpu model"},
     [(("labelKey",), f'labelKey: Invalid value: "gpu model": {QUALIFIED}')]),
    ({**ARGS, "resourceName": "cpu"},
     [(("resourceName",), 'resourceName: Invalid value: "cpu": must be an extended resource name (a '
                          'domain-qualified name outside kubernetes.io, e.g. nvidia.com/gpu)')]),
    ({"labelKey": "", "resourceName": "kubernetes.io/gpu"},
     [(("labelKey",), "labelKey: Required value: must name the GPU model label"),
      (("acceptedModels",), "acceptedModels: Required value: at least one GPU model must be accepted"),
      (("resourceName",), 'resourceName: Invalid value: "kubernetes.io/gpu": must be an extended resource '
                          'name (a domain-qualified name outside kubernetes.io, e.g. nvidia.com/gpu)')]),
], ids=["valid", "no-models", "empty-models", "empty-and-duplicate-model", "model-no-label-can-hold",
        "empty-label-key", "bad-label-key", "native-resource", "every-problem"])
def test_args_validation(args: dict, expected: list) -> None:
    _, errors = GPUBinPacking.check_args(args)
    assert [(e.path, e.message) for e in errors] == expected


def test_invalid_args_stop_a_run() -> None:
    with pytest.raises(Exception, match="acceptedModels: Required value: at least one GPU model must be"):
        run_plugin(GPUBinPacking, pod("p"), gpu_nodes(), args={})
