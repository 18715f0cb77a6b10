"""Score normalization helpers shared by plugins (``pkg/scheduler/framework/plugins/helper``).

``default_normalize_score`` is ``helper.DefaultNormalizeScore`` of v1.20::

    maxCount = max(0, max(scores))
    maxCount == 0: reverse -> every score = maxPriority; otherwise scores are left as they are
    else:          score = maxPriority * score / maxCount   (int64, truncated toward zero)
                   reverse -> score = maxPriority - score
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def go_div(numerator: np.ndarray, denominator: np.ndarray | int) -> np.ndarray:
    """Go's int64 ``/``: truncates toward zero where numpy's ``//`` floors."""
    numerator = np.asarray(numerator, dtype=np.int64)
    denominator = np.asarray(denominator, dtype=np.int64)
    quotient = numerator // denominator
    # Floor and truncation differ only for an inexact quotient of mixed sign.
    fix = (numerator % denominator != 0) & ((numerator < 0) != (denominator < 0))
    return quotient + fix


def default_normalize_score(max_priority: int, reverse: bool, scores: ArrayLike) -> np.ndarray:
    """Scale ``scores`` from [0, max(scores)] to [0, ``max_priority``], reversed if asked.

    Returns a new int64 array; ``scores`` itself is not changed.
    """
    scores = np.array(scores, dtype=np.int64)
    if scores.size == 0:
        return scores
    max_count = max(0, int(scores.max()))
    if max_count == 0:
        if reverse:
            scores[:] = max_priority
        return scores
    scaled = go_div(np.int64(max_priority) * scores, max_count)
    if reverse:
        scaled = np.int64(max_priority) - scaled
    return scaled
