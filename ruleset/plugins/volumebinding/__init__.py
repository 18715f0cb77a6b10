"""VolumeBinding (PreFilter, Filter, Reserve, PreBind): pods go where their PersistentVolumeClaims
can be bound or provisioned, and their volumes are bound to the claims there.

:mod:`.plugin` holds the plugin (``volume_binding.go``), :mod:`.binder` the scheduler's
volume binder (``scheduler_binder.go`` of v1.20) and :mod:`.matching` how a claim and a
volume match (``persistentvolume/util``), each exact to v1.20, later releases through the
switches declared in :mod:`.plugin`.
"""

from __future__ import annotations

from ruleset.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.plugins.volumebinding.plugin import (
        DEFAULT_BIND_TIMEOUT_SECONDS,
        NAME,
        VolumeBinding,
        VolumeBindingArgs,
    )

#: Each name -> its module, imported when the name is first read: importing one module of the
#: package (its args, for ``ruleset validate``) imports no other.
_EXPORTS = {
    "DEFAULT_BIND_TIMEOUT_SECONDS": "ruleset.plugins.volumebinding.plugin",
    "NAME": "ruleset.plugins.volumebinding.plugin",
    "VolumeBinding": "ruleset.plugins.volumebinding.plugin",
    "VolumeBindingArgs": "ruleset.plugins.volumebinding.plugin",
}

__all__ = ["DEFAULT_BIND_TIMEOUT_SECONDS", "NAME", "VolumeBinding", "VolumeBindingArgs"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
