"""Issue 10's fuzz properties, on a bounded budget: whatever the input, ``ruleset.cli.main``
returns 0, 1 or 2, prints no traceback and no "internal error", and answers in seconds.

Inputs are real seeds (profiles, KubeSchedulerConfigurations and Policies, cluster dumps,
pods, selectors) mutated by ``bench/fuzzing.py``; ``bench/fuzz_cli.py`` runs the same
cases by the hundred thousand. Hypothesis draws the random generator (derandomized, so CI
runs the same inputs every time) and reports the failing case's command and files.
"""

from __future__ import annotations

import random
import resource

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzzing import make_case, run_case

#: Seconds a case may take on a loaded CI machine (the long runs measure well under 1 s).
BUDGET = 5.0
#: Address space the test process may use while fuzzing (it needs well under 1 GiB).
MEMORY_LIMIT = 4 * 1024**3
FUZZ = settings(max_examples=600, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def check(seed: int, tmp_path, commands: tuple[str, ...]) -> None:
    rng = random.Random(seed)
    case = make_case(rng)
    while case.command not in commands:
        case = make_case(rng)
    verdict = run_case(case, tmp_path, BUDGET)
    assert verdict.ok, f"{verdict.problem}\nargv: {case.argv!r}\nfiles: {case.files!r}"[:4000]


@pytest.mark.parametrize("commands", [
    pytest.param(("validate", "show", "export"), id="profiles"),
    pytest.param(("import",), id="configurations"),
    pytest.param(("schedule", "score"), id="clusters"),
    pytest.param(("selector",), id="selectors"),
])
def test_no_input_crashes_hangs_or_prints_a_traceback(commands, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")

    @FUZZ
    @given(st.integers(min_value=0, max_value=2**32))
    def property_(seed):
        check(seed, folder, commands)

    # An input that makes memory run away fails its case with a MemoryError (reported as an
    # internal error) instead of taking the machine down.
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, hard))
    try:
        property_()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
