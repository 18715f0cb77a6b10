"""The cyclic garbage collector while a snapshot is loaded: paused, then what the load made
counted as old at once.

Loading allocates millions of containers and frees almost none (see
:func:`ruleset.reading.paused_gc`). Pausing the collector is not the whole story: when it is
enabled again every object made meanwhile is in the youngest generation, so the first
collection after (a quarter of a second for 5,000 nodes and 50,000 pods) traverses all of
them only to promote them, and the next one again. ``gc.freeze()`` then ``gc.unfreeze()``
moves them straight to the oldest generation instead (two list splices): they stay
collectable, by the full collections that come when the oldest generation has grown by a
quarter, as any long-lived object is.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

from ruleset.reading import paused_gc


@contextlib.contextmanager
def loading_gc() -> Iterator[None]:
    """:func:`~ruleset.reading.paused_gc` for the block; at the end of the outermost block
    (the collector was enabled on the way in), what the block made is moved to the oldest
    generation. Not when something else has frozen objects (``gc.unfreeze`` would thaw them
    too), nor when the block raises."""
    outermost = gc.isenabled()
    with paused_gc():
        yield
        if outermost and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
