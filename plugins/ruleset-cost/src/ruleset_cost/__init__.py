"""ruleset-cost: cost-aware scoring for ruleset, by a node price label or annotation.

Installing the package registers the ``CostAware`` plugin through the ``ruleset``
entry-point group; a profile then enables it like a built-in (see the README).
"""

from __future__ import annotations

from collections.abc import Callable

from ruleset import Plugin, hookimpl
from ruleset_cost.cost_aware import ERR_REASON_UNPRICED, UNPRICED_POLICIES, CostAware, CostAwareArgs
from ruleset_cost.prices import parse_price

__all__ = ["ERR_REASON_UNPRICED", "UNPRICED_POLICIES", "CostAware", "CostAwareArgs", "parse_price",
           "ruleset_register_plugins"]


@hookimpl
def ruleset_register_plugins(register: Callable[[type[Plugin]], None]) -> None:
    register(CostAware)
