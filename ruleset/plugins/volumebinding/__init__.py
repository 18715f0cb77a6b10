"""VolumeBinding (PreFilter, Filter, Reserve, PreBind): pods go where their PersistentVolumeClaims
can be bound or provisioned, and their volumes are bound to the claims there.

:mod:`.plugin` holds the plugin (``volume_binding.go``), :mod:`.binder` the scheduler's
volume binder (``scheduler_binder.go`` of v1.20) and :mod:`.matching` how a claim and a
volume match (``persistentvolume/util``), each exact to v1.20, later releases through the
switches declared in :mod:`.plugin`.
"""

from __future__ import annotations

from ruleset.plugins.volumebinding.plugin import (
    DEFAULT_BIND_TIMEOUT_SECONDS,
    NAME,
    VolumeBinding,
    VolumeBindingArgs,
)

__all__ = ["DEFAULT_BIND_TIMEOUT_SECONDS", "NAME", "VolumeBinding", "VolumeBindingArgs"]
