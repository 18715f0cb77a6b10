"""Plugin isolation: a hook that raises, or returns what it cannot, at every extension point.

One broken-plugin class factory, one table of cases. Each case makes the plugin misbehave
at one point for the pod named ``bad`` only, and asserts the exact Error status (message,
plugin, package, ``fault``), where the run reports it, and that the pod after it (``good``)
still schedules. Preemption's dry runs, a registry without ``package_of``, multi-line and
unprintable exception messages, and the checks of a ``FilterResult``'s construction are
covered after the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from ruleset import hookspecs
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Plugin
from ruleset.framework.results import FilterResult, NodeStatuses, PostFilterReport, PostFilterResult
from ruleset.framework.status import Code, Status
from ruleset.scheduler import Scheduler, schedule_all
from ruleset.scheduler.loop import ScheduleRun
from tests.factories import build_cluster, decode, framework_for, make_node, make_pod, registry_with

hookimpl = hookspecs.hookimpl
Behaviour = Callable[[dict[str, Any]], Any]


class Broken(Plugin):
    """Every extension-point hook but QueueSort, neutral unless the pod is ``bad`` and the
    hook is one of the class's ``faults`` (hook name -> what it does instead)."""

    name = "Broken"
    faults: dict[str, Behaviour] = {}  # noqa: RUF012  (set per subclass by broken())

    def _act(self, hook: str, pod: Any, neutral: Any, **kwargs: Any) -> Any:
        behaviour = self.faults.get(hook)
        if behaviour is None or pod.name != "bad":
            return neutral
        return behaviour({"pod": pod, **kwargs})

    @hookimpl
    def ruleset_pre_filter(self, state, pod, snapshot):
        return self._act("pre_filter", pod, None)

    @hookimpl
    def ruleset_pre_filter_add_pod(self, state, pod, pod_to_add, node, snapshot):
        return self._act("add_pod", pod, None)

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state, pod, pod_to_remove, node, snapshot):
        return self._act("remove_pod", pod, None)

    @hookimpl
    def ruleset_filter(self, state, pod, nodes):
        return self._act("filter", pod, None, nodes=nodes)

    @hookimpl
    def ruleset_queueing_hint(self, pod, placed):
        return self._act("hint", pod, False)

    @hookimpl
    def ruleset_post_filter(self, state, pod, statuses):
        return self._act("post_filter", pod, None)

    @hookimpl
    def ruleset_pre_score(self, state, pod, nodes):
        return self._act("pre_score", pod, None)

    @hookimpl
    def ruleset_score(self, state, pod, nodes):
        return self._act("score", pod, np.zeros(len(nodes), dtype=np.int64), nodes=nodes)

    @hookimpl
    def ruleset_normalize_score(self, state, pod, nodes, scores):
        return self._act("normalize", pod, None, nodes=nodes)

    @hookimpl
    def ruleset_reserve(self, state, pod, node):
        return self._act("reserve", pod, None)

    @hookimpl
    def ruleset_permit(self, state, pod, node):
        return self._act("permit", pod, None)

    @hookimpl
    def ruleset_pre_bind(self, state, pod, node):
        return self._act("pre_bind", pod, None)

    @hookimpl
    def ruleset_bind(self, state, pod, node):
        return self._act("bind", pod, Status(Code.SKIP))


def broken(**faults: Behaviour) -> type[Broken]:
    """A Broken plugin class misbehaving at the named hooks (``filter=...``, ``score=...``)."""
    return type("Broken", (Broken,), {"faults": faults})


def boom(kwargs: dict[str, Any]) -> Any:
    raise RuntimeError("boom")


def returns(value: Any) -> Behaviour:
    return lambda kwargs: value


def on_one_node(behaviour: Behaviour) -> Behaviour:
    """Misbehave only when filtering a single node (preemption's dry runs); pass otherwise."""
    return lambda kwargs: behaviour(kwargs) if len(kwargs["nodes"]) == 1 else None


def reject_all(kwargs: dict[str, Any]) -> FilterResult:
    return FilterResult.reject(np.ones(len(kwargs["nodes"]), dtype=bool), Code.UNSCHEDULABLE, "no")


def codes_of(value: int) -> Behaviour:
    def make(kwargs: dict[str, Any]) -> FilterResult:
        n = len(kwargs["nodes"])
        return FilterResult(np.full(n, value, dtype=np.int8), [(), ("bad code",)], np.ones(n, dtype=np.int32))
    return make


def squeezed(kwargs: dict[str, Any]) -> FilterResult:
    """np.squeeze on a one-node mask: a 0-d mask."""
    return FilterResult.reject(np.squeeze(np.ones(1, dtype=bool)), Code.UNSCHEDULABLE, "x")


@dataclass
class Victims:
    """A PostFilter report naming its victims (as DefaultPreemption's does)."""

    victims: list[Any]


@dataclass
class Report:
    """A PostFilter report with DefaultPreemption's fields, each set as a case needs."""

    victims: list[Any] = field(default_factory=list)
    candidates: list[Any] = field(default_factory=list)
    why: Any = ""
    clear_nomination: Any = False


@dataclass
class Jsoned:
    """A report (or candidate) whose ``to_json()`` returns ``value``."""

    value: Any

    def to_json(self) -> Any:
        return self.value


class Opaque:
    """A candidate without ``to_json()``."""

    def __repr__(self) -> str:
        return "<opaque>"


def post(details: Any, node: str | None = "n1") -> Behaviour:
    """PostFilter nominates ``node`` (Unschedulable when None) with ``details``."""
    status = Status() if node else Status.unschedulable("no")
    return returns(PostFilterResult(nominated_node=node, status=status, details=details))


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


# ------------------------------------------------------------------------ the cluster
def cluster(preempts: bool):
    """Two nodes of 4 CPUs, each running a low-priority pod of 3. ``good`` (100m) fits;
    ``bad`` fits too, or (``preempts``) needs 2 CPUs at priority 100: no node fits until
    DefaultPreemption's dry run removes a low pod."""
    bad = {"cpu": "2"} if preempts else {"cpu": "100m"}
    return build_cluster([
        make_node("n1", cpu="4"), make_node("n2", cpu="4"),
        make_pod("low1", node_name="n1", requests={"cpu": "3"}, priority=0),
        make_pod("low2", node_name="n2", requests={"cpu": "3"}, priority=0),
        make_pod("bad", requests=bad, priority=100 if preempts else 0,
                 creation_timestamp="2024-01-01T00:00:00Z"),
        make_pod("good", requests={"cpu": "100m"}, priority=0, creation_timestamp="2024-01-01T00:00:01Z"),
    ])


#: Broken before DefaultPreemption and DefaultBinder, so that its PostFilter and Bind run first
#: (a profile with a Bind plugin of its own gets no DefaultBinder unless it names it).
PROFILE = ["NodeResourcesFit", "Broken", "DefaultPreemption", "DefaultBinder"]


@dataclass
class Case:
    id: str
    faults: dict[str, Behaviour]
    message: str
    #: Where the Error shows: "cycle" (the pod's cycle aborts), "commit" (Reserve … Bind),
    #: "post_filter" (the PostFilter outcome; the pod stays unschedulable).
    where: str
    preempts: bool = False
    extra: dict[str, Behaviour] = field(default_factory=dict)


FILTER = 'running "Broken" filter plugin for pod "bad": '
SCORE = 'plugin "Broken" failed with: '

CASES = [
    # A hook at each point that raises.
    Case("pre-filter-raises", {"pre_filter": boom}, 'running PreFilter plugin "Broken": RuntimeError: boom', "cycle"),
    Case("filter-raises", {"filter": boom}, FILTER + "RuntimeError: boom", "cycle"),
    Case("pre-score-raises", {"pre_score": boom}, 'running PreScore plugin "Broken": RuntimeError: boom', "cycle"),
    Case("score-raises", {"score": boom}, SCORE + "RuntimeError: boom", "cycle"),
    Case("normalize-score-raises", {"normalize": boom}, SCORE + "RuntimeError: boom", "cycle"),
    Case("reserve-raises", {"reserve": boom}, 'running Reserve plugin "Broken": RuntimeError: boom', "commit"),
    Case("permit-raises", {"permit": boom}, 'running Permit plugin "Broken": RuntimeError: boom', "commit"),
    Case("pre-bind-raises", {"pre_bind": boom}, 'running PreBind plugin "Broken": RuntimeError: boom', "commit"),
    Case("bind-raises", {"bind": boom}, 'running Bind plugin "Broken": RuntimeError: boom', "commit"),
    Case("post-filter-raises", {"post_filter": boom}, 'running PostFilter plugin "Broken": RuntimeError: boom',
         "post_filter", preempts=True),
    Case("add-pod-raises", {"add_pod": boom},
         'running ruleset_pre_filter_add_pod of plugin "Broken": RuntimeError: boom', "post_filter", preempts=True),
    Case("remove-pod-raises", {"remove_pod": boom},
         'running ruleset_pre_filter_remove_pod of plugin "Broken": RuntimeError: boom', "post_filter",
         preempts=True),
    # Returning the wrong type.
    Case("pre-filter-returns-true", {"pre_filter": returns(True)},
         'running PreFilter plugin "Broken": returned True, not a Status or a PreFilterResult', "cycle"),
    Case("pre-score-returns-true", {"pre_score": returns(True)},
         'running PreScore plugin "Broken": returned True, not a Status', "cycle"),
    Case("post-filter-returns-a-status", {"post_filter": returns(Status.unschedulable("x"))},
         "running PostFilter plugin \"Broken\": returned Status(code=<Code.UNSCHEDULABLE: 2>, reasons=('x',), "
         "plugin=None), not a PostFilterResult", "post_filter", preempts=True),
    Case("post-filter-nominates-no-node", {"post_filter": returns(PostFilterResult(nominated_node="n9"))},
         "running PostFilter plugin \"Broken\": nominated 'n9', not a node of the cluster", "post_filter",
         preempts=True),
    Case("post-filter-evicts-a-stranger",
         {"post_filter": returns(PostFilterResult(nominated_node="n1", details=Victims(["low2"])))},
         "running PostFilter plugin \"Broken\": would evict 'low2', not a pod on node 'n1'", "post_filter",
         preempts=True),
    # A report the loop or a report cannot read: checked in the boundary, the plugin's error.
    Case("post-filter-candidate-without-to-json", {"post_filter": post(Report(candidates=[Opaque()]))},
         'running PostFilter plugin "Broken": reported the candidate <opaque>, which has no to_json()',
         "post_filter", preempts=True),
    Case("post-filter-candidate-json-not-a-mapping", {"post_filter": post(Report(candidates=[Jsoned([1])]))},
         "running PostFilter plugin \"Broken\": a candidate's to_json() returned [1], not a mapping",
         "post_filter", preempts=True),
    Case("post-filter-why-not-a-string", {"post_filter": post(Report(why=None))},
         'running PostFilter plugin "Broken": reported why None, not a string', "post_filter", preempts=True),
    Case("post-filter-clear-nomination-not-a-bool", {"post_filter": post(Report(clear_nomination="yes"), None)},
         "running PostFilter plugin \"Broken\": reported clear_nomination 'yes', not a bool", "post_filter",
         preempts=True),
    Case("post-filter-details-json-not-json", {"post_filter": post(Jsoned({"x": {1}}), None)},
         "running PostFilter plugin \"Broken\": the details' to_json() returned {'x': {1}}, not JSON "
         "(Object of type set is not JSON serializable)", "post_filter", preempts=True),
    Case("reserve-returns-a-string", {"reserve": returns("reserved")},
         "running Reserve plugin \"Broken\": returned 'reserved', not a Status", "commit"),
    Case("permit-returns-code-7", {"permit": returns(Status(7))},  # type: ignore[arg-type]
         'running Permit plugin "Broken": returned a Status with code 7, not a status Code', "commit"),
    Case("bind-returns-reasons-as-a-string", {"bind": returns(Status(Code.ERROR, "oops"))},  # type: ignore[arg-type]
         "running Bind plugin \"Broken\": returned a Status whose reasons are 'oops', not a tuple of strings",
         "commit"),
    Case("score-wrong-length", {"score": returns([1, 2, 3])}, SCORE + "Score returned 3 scores for 2 nodes", "cycle"),
    Case("score-2d", {"score": returns(np.zeros((2, 1)))},
         SCORE + "Score returned an array of shape (2, 1), not one score per node", "cycle"),
    Case("score-fractions", {"score": returns([1.0, 1.5])},
         SCORE + "Score returned 1.5 for node 'n2', not an integer score", "cycle"),
    Case("score-nan", {"score": returns(np.array([np.nan, 1.0]))},
         SCORE + "Score returned nan for node 'n1', not an integer score", "cycle"),
    Case("score-strings", {"score": returns(["a", "b"])},
         SCORE + "Score returned scores of dtype <U1, not integers", "cycle"),
    Case("score-none", {"score": returns(None)}, SCORE + "Score returned None, not one score per node", "cycle"),
    Case("normalize-score-out-of-range", {"normalize": returns(np.array([0, 101]))},
         'plugin "Broken" returns an invalid score 101, it should in the range of [0, 100] after normalizing',
         "cycle"),
    Case("normalize-score-wrong-length", {"normalize": returns([0])},
         SCORE + "NormalizeScore returned 1 scores for 2 nodes", "cycle"),
    Case("filter-returns-a-status", {"filter": returns(Status.unschedulable("x"))},
         FILTER + "expected a FilterResult for 2 nodes, got Status(code=<Code.UNSCHEDULABLE: 2>, reasons=('x',), "
                  "plugin=None)", "cycle"),
    Case("filter-code-7", {"filter": codes_of(7)}, FILTER + "returned code 7 for node 'n1', not a status Code",
         "cycle"),
    Case("filter-reject-with-code-7", {"filter": lambda kw: FilterResult.reject(np.ones(2, bool), 7, "x")},
         FILTER + "ValueError: 7 is not a status Code", "cycle"),
    Case("filter-0d-mask", {"filter": squeezed},
         FILTER + "ValueError: a FilterResult holds one code per node (a 1-d array), got an array of shape ()",
         "cycle"),
    Case("filter-wrong-length", {"filter": lambda kw: FilterResult.passing(3)},
         FILTER + "expected a FilterResult for 2 nodes, got codes of shape (3,) and dtype int8", "cycle"),
    # Faults while DefaultPreemption re-runs the filters node by node: the faulty plugin's error.
    Case("dry-run-filter-raises", {"filter": on_one_node(boom)}, FILTER + "RuntimeError: boom", "post_filter",
         preempts=True),
    Case("dry-run-filter-code-7", {"filter": on_one_node(codes_of(7))},
         FILTER + "returned code 7 for node 'n1', not a status Code", "post_filter", preempts=True),
    Case("dry-run-filter-returns-a-string", {"filter": on_one_node(returns("fits"))},
         FILTER + "expected a FilterResult for 1 nodes, got 'fits'", "post_filter", preempts=True),
    Case("dry-run-filter-0d-mask", {"filter": on_one_node(squeezed)},
         FILTER + "ValueError: a FilterResult holds one code per node (a 1-d array), got an array of shape ()",
         "post_filter", preempts=True),
    # Messages on one line, whatever the exception.
    Case("multi-line-message", {"pre_filter": lambda kw: (_ for _ in ()).throw(ValueError("one\n\n  two\r\nthree"))},
         'running PreFilter plugin "Broken": ValueError: one | two | three', "cycle"),
    Case("unprintable-exception", {"pre_score": lambda kw: (_ for _ in ()).throw(Unprintable())},
         'running PreScore plugin "Broken": Unprintable: <unprintable message>', "cycle"),
    Case("plugin-calls-sys-exit", {"reserve": lambda kw: (_ for _ in ()).throw(SystemExit(3))},
         'running Reserve plugin "Broken": SystemExit: 3', "commit"),
]


def reported(run: ScheduleRun, pod: str) -> list[dict[str, Any]]:
    """The error objects the run's events report for ``pod``."""
    return [e.detail["error"] for e in run.events if e.pod == f"default/{pod}" and "error" in e.detail]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_misbehaving_hook_is_an_error_of_that_plugin_and_the_run_goes_on(case: Case):
    cls = broken(**case.faults)
    state = cluster(case.preempts)
    framework = framework_for(PROFILE, registry_with(cls), snapshot=state.snapshot)
    bad = next(p for p in state.pending if p.name == "bad")

    result = Scheduler(framework).schedule(bad, always_score=True)
    if case.where == "cycle":
        status = result.status
    elif case.where == "post_filter":
        assert result.status.code == Code.UNSCHEDULABLE  # upstream: the pod is only unschedulable
        status = result.post_filter.status
    else:
        assert result.status.is_success and result.node is not None
        status = Scheduler(framework).commit(result)
        state = cluster(case.preempts)  # commit changed the snapshot: a fresh cluster for the run
        framework = framework_for(PROFILE, registry_with(cls), snapshot=state.snapshot)
    assert (status.code, status.plugin, status.package, status.fault, status.message()) == (
        Code.ERROR, "Broken", "test", True, case.message)

    run = schedule_all(framework, state)
    placements = {p.pod.name: p for p in run.placements}
    assert placements["good"].node is not None
    expected = {"code": "Error", "plugin": "Broken", "package": "test", "message": case.message}
    if case.where == "post_filter":
        assert placements["bad"].node is None and placements["bad"].error is None
        assert reported(run, "bad")[0] == expected
    else:
        assert (placements["bad"].node, placements["bad"].reason) == (None, case.message)
        assert placements["bad"].error.to_json() == expected
        assert reported(run, "bad") == [expected]


def test_the_loop_and_score_read_the_report_the_boundary_took_from_the_details():
    """``PostFilterResult.report``: DefaultPreemption's victims, candidates, why, and its
    ``to_json()`` (what ``ruleset score`` prints), read inside the plugin's boundary; a
    plugin cannot set it, and a result without details has the empty report."""
    state = cluster(preempts=True)
    framework = framework_for(["NodeResourcesFit", "DefaultPreemption", "DefaultBinder"], registry_with(),
                              snapshot=state.snapshot)
    bad = next(p for p in state.pending if p.name == "bad")
    post = Scheduler(framework).schedule(bad).post_filter
    report = post.report
    candidates = [{"node": "n1", "victims": ["default/low1"], "pdbViolations": 0},
                  {"node": "n2", "victims": ["default/low2"], "pdbViolations": 0}]
    why = "latest start time of its most important victims"
    assert (post.nominated_node, [v.name for v in report.victims], list(report.candidates), report.why,
            report.clear_nomination, report.json) == (
        "n1", ["low1"], candidates, why, False, {"candidates": candidates, "nominatedNode": "n1", "reason": why})
    assert PostFilterResult().report == PostFilterReport()
    with pytest.raises(TypeError):
        PostFilterResult(report=report)  # type: ignore[call-arg]


def test_a_failing_queueing_hint_retries_the_pod_and_names_the_plugin():
    cls = broken(filter=reject_all, hint=boom)
    state = cluster(preempts=False)
    framework = framework_for(PROFILE, registry_with(cls), snapshot=state.snapshot)
    bad, good = (next(p for p in state.pending if p.name == name) for name in ("bad", "good"))
    retry, status = framework.run_queueing_hints(bad, good)
    assert (retry, status.code, status.plugin, status.package, status.message()) == (
        True, Code.ERROR, "Broken", "test", 'running QueueingHint of plugin "Broken": RuntimeError: boom')
    run = schedule_all(framework, state)
    assert [(e.kind, e.pod) for e in run.events] == [
        ("unschedulable", "default/bad"), ("scheduled", "default/good"), ("unschedulable", "default/bad")]


@pytest.mark.parametrize(("answer", "expected"), [
    pytest.param(None, (False, Code.SUCCESS, ""), id="none-is-no"),
    pytest.param(np.bool_(True), (True, Code.SUCCESS, ""), id="numpy-bool"),
    pytest.param("yes", (True, Code.ERROR, "running QueueingHint of plugin \"Broken\": returned 'yes', not a bool"),
                 id="a-string-is-an-error"),
])
def test_queueing_hint_answers(answer, expected):
    framework = framework_for(PROFILE, registry_with(broken(hint=returns(answer))))
    retry, status = framework.run_queueing_hints(decode(make_pod("bad")), decode(make_pod("p")))
    assert (retry, status.code, status.message()) == expected


class NoPackages:
    """A registry as tests may write one: no ``package_of``."""

    def __init__(self, cls: type[Plugin]):
        self.inner = registry_with(cls)

    def __getattr__(self, name: str) -> Any:
        if name == "package_of":
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_a_registry_without_package_of_names_the_package_unknown():
    state = cluster(preempts=False)
    framework = framework_for(PROFILE, NoPackages(broken(filter=boom)), snapshot=state.snapshot)
    status = Scheduler(framework).schedule(next(p for p in state.pending if p.name == "bad")).status
    assert (status.plugin, status.package) == ("Broken", "unknown")


def test_an_error_a_built_in_plugin_reports_names_it_built_in_and_is_no_fault():
    state = build_cluster([make_node("n1", cpu="1")])
    framework = framework_for(["NodeResourcesFit"], registry_with(), snapshot=state.snapshot)
    # NodeResourcesFit's Filter without the state its PreFilter writes reports an Error.
    status = framework.run_filter(CycleState(), decode(make_pod()), state.snapshot.all_nodes(), NodeStatuses(1))[1]
    assert (status.code, status.plugin, status.package, status.fault) == (Code.ERROR, "NodeResourcesFit",
                                                                          "built-in", False)


def test_an_error_a_filter_reports_in_a_dry_run_makes_the_node_no_candidate():
    """v1.20's selectVictimsOnNode: a reported Error (not a fault) skips the node."""
    def error_on_n1(kwargs: dict[str, Any]) -> Any:
        nodes = kwargs["nodes"]
        if len(nodes) == 1 and nodes.names[0] == "n1":
            return FilterResult.error(1, "state missing")
        return None

    state = cluster(preempts=True)
    framework = framework_for(PROFILE, registry_with(broken(filter=error_on_n1)), snapshot=state.snapshot)
    result = Scheduler(framework).schedule(next(p for p in state.pending if p.name == "bad"))
    assert (result.post_filter.status.is_success, result.post_filter.nominated_node) == (True, "n2")


@pytest.mark.parametrize(("build", "message"), [
    pytest.param(lambda: FilterResult.reject(np.squeeze(np.ones(1, bool)), Code.UNSCHEDULABLE, "x"),
                 "a FilterResult holds one code per node (a 1-d array), got an array of shape ()", id="0d-mask"),
    pytest.param(lambda: FilterResult.reject(np.ones((2, 2), bool), Code.UNSCHEDULABLE, "x"),
                 "a FilterResult holds one code per node (a 1-d array), got an array of shape (2, 2)",
                 id="2d-mask"),
    pytest.param(lambda: FilterResult.reject(np.ones(2, bool), 7, "x"), "7 is not a status Code", id="code-7"),
    pytest.param(lambda: FilterResult.reject(np.ones(2, bool), True, "x"), "True is not a status Code",
                 id="code-bool"),
    pytest.param(lambda: FilterResult([0, 2], [()], np.zeros(2, np.int32)),
                 "a FilterResult holds one code per node (a 1-d array), got a list", id="codes-a-list"),
    pytest.param(lambda: FilterResult(np.zeros(2, np.int8), [()], np.zeros(3, np.int32)),
                 "a FilterResult's reason_index must match its 2 codes, got an array of shape (3,)",
                 id="index-length"),
    pytest.param(lambda: FilterResult.from_statuses([None, Status(9)]),  # type: ignore[arg-type]
                 "9 is not a status Code (node 1)", id="from-statuses-code-9"),
    pytest.param(lambda: FilterResult.from_statuses([None, "fits"]),  # type: ignore[list-item]
                 "expected a Status or None for node 1, got 'fits'", id="from-statuses-not-a-status"),
])
def test_an_invalid_filter_result_cannot_be_built(build, message):
    with pytest.raises((ValueError, TypeError)) as info:
        build()
    assert str(info.value) == message


def test_a_failing_queue_sort_stops_the_run_with_one_located_problem():
    from ruleset.config import PluginConfig, Profile
    from ruleset.errors import RulesetError
    from ruleset.framework.plugin import Handle
    from ruleset.framework.runtime import Framework

    class BadSort(Plugin):
        name = "BadSort"

        @hookimpl
        def ruleset_queue_sort(self, a, b):
            return "yes"

    state = cluster(preempts=False)
    profile = Profile(name="t", plugins=[PluginConfig("BadSort")])
    framework = Framework(profile, registry_with(BadSort), Handle(state.snapshot))
    with pytest.raises(RulesetError) as info:
        schedule_all(framework, state)
    assert [str(p) for p in info.value.problems] == [
        "<input>: running QueueSort plugin \"BadSort\" (package test): returned 'yes', not a bool"]


def test_a_fault_in_add_pod_for_a_nominated_pod_aborts_the_cycle_and_the_run_goes_on():
    """The cycle's two-pass filter on a node holding a nominated pod runs AddPod extensions."""
    from ruleset.scheduler import nominate_pending

    state = build_cluster([
        make_node("n1", cpu="4"), make_node("n2", cpu="4"),
        make_pod("bad", requests={"cpu": "100m"}, creation_timestamp="2024-01-01T00:00:00Z"),
        make_pod("good", requests={"cpu": "100m"}, creation_timestamp="2024-01-01T00:00:01Z"),
        make_pod("nominee", requests={"cpu": "100m"}, nominated_node_name="n1",
                 creation_timestamp="2024-01-01T00:00:02Z"),
    ])
    framework = framework_for(PROFILE, registry_with(broken(add_pod=boom)), snapshot=state.snapshot)
    nominate_pending(framework.handle.nominator, state)
    status = Scheduler(framework).schedule(next(p for p in state.pending if p.name == "bad")).status
    message = 'running ruleset_pre_filter_add_pod of plugin "Broken": RuntimeError: boom'
    assert (status.code, status.plugin, status.package, status.fault, status.message()) == (
        Code.ERROR, "Broken", "test", True, message)
    run = schedule_all(framework, state)
    assert {p.pod.name: (p.node is not None, p.reason) for p in run.placements} == {
        "nominee": (True, ""), "bad": (False, message), "good": (True, "")}


# ------------------------------------------------------------------ constructors and args
def raising(exc: BaseException) -> Callable[..., Any]:
    def fail(*args: Any) -> Any:
        raise exc
    return fail


@pytest.mark.parametrize(("method", "exc", "message"), [
    pytest.param("__init__", SystemExit(0), "initializing plugin 'Broken': SystemExit: 0", id="init-sys-exit-0"),
    pytest.param("__init__", SystemExit(), "initializing plugin 'Broken': SystemExit", id="init-sys-exit"),
    pytest.param("__init__", Unprintable(), "initializing plugin 'Broken': Unprintable: <unprintable message>",
                 id="init-unprintable"),
    pytest.param("parse_args", SystemExit(0), "cannot read args: SystemExit: 0", id="parse-args-sys-exit"),
    pytest.param("parse_args", Unprintable(), "cannot read args: Unprintable: <unprintable message>",
                 id="parse-args-unprintable"),
    pytest.param("validate_args", SystemExit(4), "validating args failed: SystemExit: 4",
                 id="validate-args-sys-exit"),
    pytest.param("validate_args", Unprintable(), "validating args failed: Unprintable: <unprintable message>",
                 id="validate-args-unprintable"),
    pytest.param("validate_args", ValueError(), "validating args failed: ValueError", id="validate-args-empty"),
])
def test_a_constructor_or_args_check_that_exits_or_cannot_be_printed_is_a_problem_of_the_profile(method, exc,
                                                                                                 message):
    """The same boundary (Exception and SystemExit) and the same wording as the hooks': a
    plugin calling sys.exit(0) used to end the run with exit 0."""
    from ruleset.framework.runtime import FrameworkError

    fail = raising(exc)
    cls = type("Broken", (Broken,), {method: fail if method == "__init__" else classmethod(fail)})
    with pytest.raises(FrameworkError) as info:
        framework_for(["Broken"], registry_with(cls))
    where, code = ("plugins.Broken", "plugin-init-failed") if method == "__init__" else ("plugins.Broken.args",
                                                                                          "invalid-args")
    assert [(str(p), p.code) for p in info.value.problems] == [(f"<input>: {where}: {message}", code)]


def test_one_boundary_and_one_description_of_an_exception():
    from ruleset.errors import PLUGIN_FAULTS, describe_exception
    from ruleset.framework import runtime

    assert (PLUGIN_FAULTS, runtime._FAULTS is PLUGIN_FAULTS) == ((Exception, SystemExit), True)
    assert [describe_exception(e) for e in (ValueError("x"), KeyError("k"), SystemExit(), Unprintable())] == [
        "ValueError: x", "KeyError: 'k'", "SystemExit", "Unprintable: <unprintable message>"]


# ------------------------------------------------------------------ preemption's one-node filter
def one_node(codes: list[int], reasons: Any, index: list[int]) -> Behaviour:
    return on_one_node(returns(FilterResult(np.array(codes, dtype=np.int8), reasons, np.array(index, np.int32))))


@pytest.mark.parametrize(("behaviour", "expected"), [
    pytest.param(one_node([2], [(), ("full",)], [1]), (Code.UNSCHEDULABLE, "full", False), id="unschedulable"),
    pytest.param(one_node([3], [(), ("never",)], [1]), (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "never", False),
                 id="unresolvable"),
    pytest.param(one_node([1], [(), ("a", "b")], [1]),
                 (Code.ERROR, FILTER + "a, b", False), id="reported-error"),
    pytest.param(one_node([5], [(), ("skip",)], [1]),
                 (Code.ERROR, FILTER + "skip", False), id="a-code-filter-cannot-give"),
    pytest.param(one_node([-1], [(), ("x",)], [1]),
                 (Code.ERROR, FILTER + "returned code -1 for node 'n1', not a status Code", True), id="code-minus-1"),
    pytest.param(one_node([2], [()], [1]),
                 (Code.ERROR, FILTER + "a FilterResult's reason_index points outside its reasons", True),
                 id="index-outside"),
    pytest.param(one_node([2], ((), ("full",)), [-1]),
                 (Code.ERROR, FILTER + "a FilterResult's reason_index points outside its reasons", True),
                 id="index-negative"),
    pytest.param(one_node([2], [(), ["full"]], [1]),
                 (Code.ERROR, FILTER + "a FilterResult's reasons must be tuples of strings, got ['full']", True),
                 id="reasons-a-list"),
    pytest.param(one_node([2], "full", [0]),
                 (Code.ERROR, FILTER + "a FilterResult's reason_index points outside its reasons", True),
                 id="reasons-a-string"),
    # O(1): only the failing node's entry of the reasons table is read.
    pytest.param(one_node([2], [(), ("full",), [3]], [1]), (Code.UNSCHEDULABLE, "full", False),
                 id="an-unused-bad-entry-is-not-read"),
])
def test_the_one_node_filter_checks_the_one_code_and_the_one_reasons_entry(behaviour, expected):
    state = cluster(preempts=False)
    framework = framework_for(["Broken"], registry_with(broken(filter=behaviour)), snapshot=state.snapshot)
    bad = next(p for p in state.pending if p.name == "bad")
    status = framework.run_filters_on_node(CycleState(), bad, 0, state.snapshot, with_nominated=False)
    assert (status.code, status.message(), status.fault, status.plugin, status.package) == (
        *expected, "Broken", "test")
