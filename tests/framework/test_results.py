"""FilterResult helpers: reject and status, as the framework reads them."""

from __future__ import annotations

import numpy as np
import pytest

from ruleset.framework.results import FilterResult
from ruleset.framework.status import SUCCESS, Code, Status


@pytest.mark.parametrize("code", [Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR, 2])
def test_reject(code: int) -> None:
    result = FilterResult.reject([True, False, True], code, "first", "second")
    assert result.codes.dtype == np.int8
    assert result.codes.tolist() == [int(code), 0, int(code)]
    assert [result.status(i) for i in range(3)] == [
        Status(Code(code), ("first", "second")), SUCCESS, Status(Code(code), ("first", "second"))]


def test_reject_nothing_passes_every_node() -> None:
    result = FilterResult.reject(np.zeros(4, dtype=bool), Code.UNSCHEDULABLE, "never")
    assert result.codes.tolist() == [0, 0, 0, 0]
    assert all(result.status(i) is SUCCESS for i in range(4))


def test_status_of_an_unknown_code_raises_as_the_enum_does() -> None:
    result = FilterResult(np.array([9], dtype=np.int8), [(), ("x",)], np.array([1], dtype=np.int32))
    with pytest.raises(ValueError, match="9 is not a valid Code"):
        result.status(0)
