"""ruleset-gpu-binpack: GPU-model filtering and GPU bin-packing for ruleset.

Installing the package registers the ``GPUBinPacking`` plugin through the ``ruleset``
entry-point group; a profile then enables it like a built-in (see the README).
"""

from __future__ import annotations

from collections.abc import Callable

from ruleset import Plugin, hookimpl
from ruleset_gpu_binpack.gpu_binpacking import (
    DEFAULT_LABEL_KEY,
    DEFAULT_RESOURCE_NAME,
    ERR_REASON_MODEL_NOT_ACCEPTED,
    ERR_REASON_NO_GPU_MODEL,
    GPUBinPacking,
    GPUBinPackingArgs,
)

__all__ = ["DEFAULT_LABEL_KEY", "DEFAULT_RESOURCE_NAME", "ERR_REASON_MODEL_NOT_ACCEPTED",
           "ERR_REASON_NO_GPU_MODEL", "GPUBinPacking", "GPUBinPackingArgs", "ruleset_register_plugins"]


@hookimpl
def ruleset_register_plugins(register: Callable[[type[Plugin]], None]) -> None:
    register(GPUBinPacking)
