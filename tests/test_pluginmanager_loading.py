"""Plugin loading that holds: a package that fails to import or register leaves no hook behind; a
plugin with an invalid args schema, another plugin API major version, or a name already taken is
refused alone; local modules load through ``--plugin`` and ``RULESET_PLUGINS``; every command shows
load problems once on stderr and in its JSON (``pluginProblems``); ``validate``, which loads an
installed package only when a profile names a plugin no built-in has, counts the problems of the
packages it loaded and fails on them under ``--strict``; ``ruleset plugins`` lists what is installed; commands that need no
plugin import none.

Third-party packages are faked: ``ruleset.pluginmanager.entry_points`` is replaced by a function
returning fake entry points, and the registry cache is cleared around each test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

import ruleset
from ruleset import hookimpl, pluginmanager
from ruleset.cli import main
from ruleset.config import Profile
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import AUTOLOAD_ENV, LOCAL_ENV, PluginProblem, load_registry
from ruleset.plugins.node_label import NodeLabel

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ fake packages
class Gpu(ruleset.Plugin):
    """Prefers nodes with a GPU."""

    name = "Gpu"

    @hookimpl
    def ruleset_score(self, state: Any, pod: Any, nodes: Any) -> np.ndarray:
        return np.zeros(len(nodes), dtype=np.int64)


class OtherGpu(Gpu):
    """Another package's plugin of the same name."""


class FakeNodeLabel(Gpu):
    """A third-party plugin that takes a built-in's name."""

    name = "NodeLabel"


class BadSchema(Gpu):
    """A plugin whose args schema is no JSON Schema."""

    name = "BadSchema"
    args_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"n": {"type": "strnig"}}}


class FromTheFuture(Gpu):
    """Written for the next major plugin API."""

    name = "FromTheFuture"
    api_version = "2"


class MinorAhead(Gpu):
    """Written for a later minor version of the current API: accepted."""

    name = "MinorAhead"
    api_version = f"{ruleset.PLUGIN_API_VERSION}.3"


def package(name: str, *plugins: type[ruleset.Plugin], fail: Exception | None = None,
            schema_hook: Callable[[Any], Any] | None = None) -> types.ModuleType:
    """A plugin module registering ``plugins`` (then raising ``fail``), with an args-schema hook."""
    module = types.ModuleType(name)

    def ruleset_register_plugins(register: Callable[[Any], None]) -> None:
        for cls in plugins:
            register(cls)
        if fail is not None:
            raise fail

    module.ruleset_register_plugins = hookimpl(ruleset_register_plugins)  # type: ignore[attr-defined]
    if schema_hook is not None:
        def ruleset_plugin_args_schema(plugin: Any) -> Any:
            return schema_hook(plugin)

        module.ruleset_plugin_args_schema = hookimpl(ruleset_plugin_args_schema)  # type: ignore[attr-defined]
    return module


@dataclass
class Dist:
    name: str
    version: str


@dataclass
class EntryPoint:
    name: str
    dist: Dist
    module: types.ModuleType | BaseException

    @property
    def value(self) -> str:
        return self.name

    def load(self) -> types.ModuleType:
        if isinstance(self.module, BaseException):
            raise self.module
        return self.module


def ep(name: str, module: types.ModuleType | BaseException, version: str = "1.0") -> EntryPoint:
    return EntryPoint(name, Dist(name, version), module)


@pytest.fixture
def installed(monkeypatch) -> Iterator[Callable[..., None]]:
    """``installed(ep, …)``: these entry points (and only these) are what is installed."""
    load_registry.cache_clear()
    monkeypatch.setenv(AUTOLOAD_ENV, "0")
    monkeypatch.delenv(LOCAL_ENV, raising=False)

    def install(*eps: EntryPoint) -> None:
        monkeypatch.setattr(pluginmanager, "entry_points", lambda *, group: list(eps))
        load_registry.cache_clear()

    install()
    yield install
    load_registry.cache_clear()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def profile_file(tmp_path: Path, body: str, name: str = "p.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return str(path)


BROKEN = ep("broken", ModuleNotFoundError("No module named 'nope'"))
BROKEN_PROBLEM = PluginProblem("plugin-load-failed", "warning", "broken 1.0", None,
                               "plugin package 'broken' (broken 1.0): cannot import: ModuleNotFoundError: "
                               "No module named 'nope'")
BROKEN_LINE = ("warning: plugin package 'broken' (broken 1.0): cannot import: ModuleNotFoundError: "
               "No module named 'nope' [plugin-load-failed]\n")


# ------------------------------------------------------------------------------ loading
def test_a_package_that_fails_to_import_is_a_problem(installed):
    installed(BROKEN, ep("gpu", package("gpu", Gpu)))
    registry = load_registry()
    assert registry.problems == [BROKEN_PROBLEM]
    assert registry.package_of("Gpu") == "gpu 1.0"


def permissive(plugin: Any) -> dict[str, Any]:
    return {"type": "object"}


def test_a_package_whose_registration_fails_leaves_no_hook_behind(installed):
    module = package("sloppy", Gpu, fail=RuntimeError("boom"), schema_hook=permissive)
    installed(ep("sloppy", module))
    registry = load_registry()
    assert registry.problems == [PluginProblem(
        "plugin-load-failed", "warning", "sloppy 1.0", None,
        "plugin package 'sloppy' (sloppy 1.0): registering its plugins failed: RuntimeError: boom; "
        "none of its hooks is used")]
    assert registry.get("Gpu") is None
    assert registry.manager is not None and not registry.manager.is_registered(module)
    impls = registry.manager.hook.ruleset_plugin_args_schema.get_hookimpls()
    assert [impl.plugin_name for impl in impls] == ["ruleset.defaults"]
    assert registry.args_schema("NodeLabel") == NodeLabel.args_schema


def test_validate_still_rejects_a_misspelled_arg_after_a_package_failed_to_register(installed, tmp_path,
                                                                                      capsys):
    """The schema hook of a package whose registration failed used to stay, replace every plugin's
    schema with a permissive one, and let this profile through with exit 0."""
    installed(ep("sloppy", package("sloppy", Gpu, fail=RuntimeError("boom"), schema_hook=permissive)))
    path = profile_file(tmp_path, """\
        name = "p"
        [plugins.NodeLabel]
        args = { presentLabelz = ["gpu"] }
        [plugins.Gpu]
        """)  # Gpu, which no built-in has, makes validate load the installed packages
    code, out, err = run(capsys, "validate", path)
    assert code == 1
    assert out == (f"{path}:3:10: error: plugins.NodeLabel.args.presentLabelz: unknown arg 'presentLabelz' for "
                   "plugin NodeLabel; did you mean 'presentLabels'? [unknown-arg]\n"
                   f"{path}:4:10: error: plugins.Gpu: unknown plugin 'Gpu' (note: plugin package 'sloppy' "
                   "(sloppy 1.0): registering its plugins failed: RuntimeError: boom; none of its hooks is used) "
                   "[unknown-plugin]\n"
                   "1 file checked, 1 invalid, 2 errors, 0 warnings, 1 plugin problem\n")
    assert err == ("warning: plugin package 'sloppy' (sloppy 1.0): registering its plugins failed: "
                   "RuntimeError: boom; none of its hooks is used [plugin-load-failed]\n")


INVALID_SCHEMA = ("plugin package 'odd' (odd 1.0): plugin 'BadSchema' has an invalid args schema: 'strnig' is "
                  "not valid under any of the given schemas (at properties/n/type)")


def test_a_plugin_with_an_invalid_args_schema_is_disabled(installed, tmp_path, capsys):
    installed(ep("odd", package("odd", BadSchema, Gpu)))
    registry = load_registry()
    assert registry.problems == [PluginProblem("invalid-args-schema", "error", "odd 1.0", "BadSchema",
                                               INVALID_SCHEMA)]
    assert (registry.get("BadSchema"), registry.get("Gpu")) == (None, Gpu)
    unused = profile_file(tmp_path, 'name = "a"\nkubernetesVersion = "1.20"\n[plugins.Gpu]\n', "a.toml")
    uses = profile_file(tmp_path, 'name = "b"\n[plugins.BadSchema]\nargs = { n = 1 }\n', "b.toml")
    code, out, err = run(capsys, "validate", unused, uses)
    assert (code, err) == (1, f"error: {INVALID_SCHEMA} [invalid-args-schema]\n")
    assert out == (f"{uses}:2:10: error: plugins.BadSchema: plugin 'BadSchema' cannot be used: plugin 'BadSchema' "
                   "has an invalid args schema: 'strnig' is not valid under any of the given schemas (at "
                   "properties/n/type) (plugin package 'odd' (odd 1.0)) [plugin-unavailable]\n"
                   "2 files checked, 1 invalid, 1 error, 0 warnings, 1 plugin problem\n")


def reads_a_missing_attribute(plugin: Any) -> Any:
    return plugin.args_schema_for_me


def breaks_node_label(plugin: Any) -> Any:
    return {"type": 5} if plugin.name == "NodeLabel" else None


def a_list_for_gpu(plugin: Any) -> Any:
    return ["object"] if plugin.name == "Gpu" else None


MEDDLER = "plugin package 'meddler' (meddler 1.0): "


@pytest.mark.parametrize(("hook", "message"), [
    pytest.param(reads_a_missing_attribute,
                 "its args schema hook failed for plugin 'SchedulingGates': AttributeError: type object "
                 "'SchedulingGates' has no attribute 'args_schema_for_me'", id="raises-for-every-class"),
    pytest.param(breaks_node_label,
                 "its args schema hook gave plugin 'NodeLabel' an invalid args schema: 5 is not valid under any "
                 "of the given schemas (at type)", id="invalid-for-a-built-in"),
    pytest.param(a_list_for_gpu,
                 "its args schema hook gave plugin 'Gpu' an invalid args schema: expected a JSON Schema object, "
                 "got list", id="invalid-for-its-own-plugin"),
])
def test_a_schema_hook_that_fails_leaves_its_package_out_whole_and_every_built_in_works(installed, hook,
                                                                                          message):
    """The package whose hook raised or answered an invalid schema is blamed, not the plugin it
    was asked about: it goes whole (its plugin and hooks), the built-ins keep their schemas."""
    module = package("meddler", Gpu, schema_hook=hook)
    installed(ep("meddler", module), ep("other", package("other", MinorAhead)))
    registry = load_registry()
    assert registry.problems == [PluginProblem("plugin-load-failed", "warning", "meddler 1.0", None,
                                               f"{MEDDLER}{message}; none of its hooks is used")]
    assert registry.disabled == []
    assert (registry.get("Gpu"), registry.get("MinorAhead"), registry.get("NodeLabel")) == (None, MinorAhead,
                                                                                           NodeLabel)
    assert registry.manager is not None and not registry.manager.is_registered(module)
    impls = registry.manager.hook.ruleset_plugin_args_schema.get_hookimpls()
    assert [impl.plugin_name for impl in impls] == ["ruleset.defaults"]
    assert registry.args_schema("NodeLabel") is NodeLabel.args_schema
    assert registry.names() == sorted([*load_registry.__wrapped__(autoload=False).names(), "MinorAhead"])


def test_the_packages_a_failing_schema_hook_left_out_take_their_name_clashes_and_problems_along(installed):
    """Settled again without the package: the name it shared is the other package's, and the
    problems of its own plugins (another API version) are not reported."""
    meddler = package("meddler", OtherGpu, FromTheFuture, schema_hook=breaks_node_label)
    installed(ep("a", package("a", Gpu)), ep("meddler", meddler))
    registry = load_registry()
    assert registry.problems == [PluginProblem(
        "plugin-load-failed", "warning", "meddler 1.0", None,
        f"{MEDDLER}its args schema hook gave plugin 'NodeLabel' an invalid args schema: 5 is not valid under any "
        "of the given schemas (at type); none of its hooks is used")]
    assert (registry.get("Gpu"), registry.package_of("Gpu"), registry.disabled) == (Gpu, "a 1.0", [])


def test_a_schema_hook_that_answers_for_a_built_in_validly_is_used_and_one_that_passes_is_innocent(installed):
    def loosens_node_label(plugin: Any) -> Any:
        return {"type": "object"} if plugin.name == "NodeLabel" else None

    installed(ep("loose", package("loose", schema_hook=loosens_node_label)),
              ep("meddler", package("meddler", schema_hook=breaks_node_label)))
    registry = load_registry()
    # meddler's hook is asked first (registered last) and fails; loose's then answers.
    assert [p.message for p in registry.problems] == [
        f"{MEDDLER}its args schema hook gave plugin 'NodeLabel' an invalid args schema: 5 is not valid under any "
        "of the given schemas (at type); none of its hooks is used"]
    assert (registry.get("NodeLabel"), registry.args_schema("NodeLabel")) == (NodeLabel, {"type": "object"})


CLASH_BUILTIN = ("plugin package 'evil' (evil 1.0): plugin name 'NodeLabel' is taken by the built-in plugin "
                 "NodeLabel; rename the plugin (the built-in keeps working)")


def test_a_plugin_named_like_a_built_in_is_refused_and_the_built_in_keeps_working(installed, tmp_path, capsys):
    installed(ep("evil", package("evil", FakeNodeLabel)))
    registry = load_registry()
    assert registry.problems == [PluginProblem("plugin-name-clash", "error", "evil 1.0", "NodeLabel",
                                               CLASH_BUILTIN)]
    assert registry.get("NodeLabel") is NodeLabel
    path = profile_file(tmp_path, 'name = "p"\nkubernetesVersion = "1.20"\n[plugins.NodeLabel]\n'
                                  'args = { presentLabels = ["a"] }\n')
    # validate names only built-ins, so it loads no installed package: the built-in, and no problem.
    assert run(capsys, "validate", path) == (0, "1 file checked, 0 invalid, 0 errors, 0 warnings\n", "")


CLASH = ("a plugin named 'Gpu' already exists: packages 'a 1.0' and 'b 2.0' both register it; neither can be "
         "used until one is renamed")


def test_two_packages_registering_one_name_make_it_unusable(installed, tmp_path, capsys):
    installed(ep("a", package("a", Gpu)), ep("b", package("b", OtherGpu), version="2.0"))
    registry = load_registry()
    assert registry.problems == [PluginProblem("plugin-name-clash", "error", "b 2.0", "Gpu", CLASH)]
    assert registry.get("Gpu") is None
    path = profile_file(tmp_path, 'name = "p"\n\n[plugins.Gpu]\nweight = 2\n')
    code, out, err = run(capsys, "validate", path)
    assert (code, err) == (1, f"error: {CLASH} [plugin-name-clash]\n")
    assert out == (f"{path}:3:10: error: plugins.Gpu: plugin 'Gpu' cannot be used: {CLASH} [plugin-unavailable]\n"
                   "1 file checked, 1 invalid, 1 error, 0 warnings, 1 plugin problem\n")


def test_one_class_registered_by_two_packages_is_no_clash(installed):
    installed(ep("a", package("a", Gpu)), ep("b", package("b", Gpu)))
    registry = load_registry()
    assert (registry.problems, registry.get("Gpu"), registry.package_of("Gpu")) == ([], Gpu, "a 1.0")


def test_a_plugin_for_another_major_api_version_is_refused(installed):
    installed(ep("future", package("future", FromTheFuture, MinorAhead)))
    registry = load_registry()
    assert registry.problems == [PluginProblem(
        "plugin-api-version", "error", "future 1.0", "FromTheFuture",
        "plugin package 'future' (future 1.0): plugin 'FromTheFuture' is written for plugin API version 2; "
        "this ruleset provides version 1")]
    assert (registry.get("FromTheFuture"), registry.get("MinorAhead")) == (None, MinorAhead)
    assert registry.unavailable("FromTheFuture") == (
        "plugin 'FromTheFuture' is written for plugin API version 2; this ruleset provides version 1 "
        "(plugin package 'future' (future 1.0))")


def test_the_api_version_is_public_and_the_default_of_every_plugin():
    assert (ruleset.PLUGIN_API_VERSION, ruleset.Plugin.api_version, Gpu.api_version) == ("1", "1", "1")


def test_the_handle_shows_the_profile_read_only():
    seen = []

    class Peek(Gpu):
        name = "Peek"

        def __init__(self, args: Any = None, handle: Any = None) -> None:
            super().__init__(args, handle)
            seen.append(self.handle.profile)

    from tests.factories import registry_with

    profile = Profile(name="peek", percentage_of_nodes_to_score=40, kubernetes_version="1.34")
    from ruleset.config import PluginConfig
    profile.plugins.append(PluginConfig(name="Peek"))
    Framework(profile, registry_with(Peek))
    assert seen == [ruleset.ProfileView("peek", 40, "1.34")]
    with pytest.raises(AttributeError):
        seen[0].name = "other"  # type: ignore[misc]
    assert ruleset.Handle().profile is None


def test_the_handle_builds_its_profile_view_once_when_given_to_a_framework():
    from tests.factories import registry_with

    handle = ruleset.Handle()
    Framework(Profile(name="once", percentage_of_nodes_to_score=0), registry_with(), handle)
    assert (handle.profile is handle.profile, handle.profile) == (True, ruleset.ProfileView("once", 0, "1.20"))


# ------------------------------------------------------------------------------ local modules
GPU_MODULE = '''\
"""A plugin module under development."""
import numpy as np
import ruleset


class Gpu(ruleset.Plugin):
    """Prefers nodes with a GPU."""

    name = "Gpu"

    @ruleset.hookimpl
    def ruleset_score(self, state, pod, nodes):
        return np.full(len(nodes), 7, dtype=np.int64)


@ruleset.hookimpl
def ruleset_register_plugins(register):
    register(Gpu)
'''

CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Pod
  metadata: {name: web, namespace: shop}
  spec: {containers: [{name: c}]}
"""

GPU_TEXT = """\
Gpu  (local: {item})
  Prefers nodes with a GPU.
  points: score
  args: none
"""


def test_plugin_loads_a_module_by_dotted_name(installed, tmp_path, monkeypatch, capsys):
    (tmp_path / "devplugins").mkdir()
    (tmp_path / "devplugins" / "__init__.py").write_text("")
    (tmp_path / "devplugins" / "gpu.py").write_text(GPU_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert run(capsys, "plugins", "--plugin", "devplugins.gpu", "Gpu") == (
        0, GPU_TEXT.format(item="devplugins.gpu"), "")


def test_plugin_loads_a_file_and_the_profile_runs_it(installed, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "gpu_plugin.py").write_text(GPU_MODULE)
    profile_file(tmp_path, 'name = "gpu"\n[plugins.Gpu]\nweight = 3\n', "gpu.toml")
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    code, out, err = run(capsys, "score", "--plugin", "dev/gpu_plugin.py", "--profile", "gpu.toml",
                         "--cluster", "cluster.yaml", "--output", "json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert [(node["name"], node["scores"]) for node in document["nodes"]] == [
        ("n1", {"Gpu": {"raw": 7, "score": 7, "weight": 3, "weighted": 21}})]
    assert document["pluginProblems"] == []
    assert run(capsys, "plugins", "--plugin", "dev/gpu_plugin.py", "Gpu") == (
        0, GPU_TEXT.format(item="dev/gpu_plugin.py"), "")


def test_a_plugin_named_with_the_option_that_does_not_load_is_an_input_error(installed, tmp_path, capsys,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "validate", "--plugin", "missing_plugin.py", "x.toml") == (
        2, "", "error: local plugin module 'missing_plugin.py': cannot import: FileNotFoundError: no such file: "
               "missing_plugin.py [plugin-load-failed]\n")
    assert run(capsys, "plugins", "--plugin", "no.such.module") == (
        2, "", "error: local plugin module 'no.such.module': cannot import: ModuleNotFoundError: No module "
               "named 'no' [plugin-load-failed]\n")


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str")


@pytest.mark.parametrize(("module", "message"), [
    pytest.param(Unprintable(), "cannot import: Unprintable: <unprintable message>", id="import"),
    pytest.param(package("odd", Gpu, fail=Unprintable()),
                 "registering its plugins failed: Unprintable: <unprintable message>; none of its hooks is used",
                 id="registration"),
    pytest.param(SystemExit(3), "cannot import: SystemExit: 3", id="import-calls-sys-exit"),
    pytest.param(package("odd", Gpu, fail=SystemExit()),
                 "registering its plugins failed: SystemExit; none of its hooks is used", id="register-calls-sys-exit"),
])
def test_a_package_that_fails_with_an_unprintable_exception_or_sys_exit_is_a_problem(installed, module, message):
    installed(ep("odd", module))
    assert load_registry().problems == [PluginProblem("plugin-load-failed", "warning", "odd 1.0", None,
                                                      f"plugin package 'odd' (odd 1.0): {message}")]


def test_a_local_module_whose_exception_cannot_be_printed_is_an_input_error(installed, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "badstr.py").write_text(
        "class E(Exception):\n    def __str__(self):\n        raise RuntimeError('no str')\nraise E()\n")
    assert run(capsys, "plugins", "--plugin", "badstr.py") == (
        2, "", "error: local plugin module 'badstr.py': cannot import: E: <unprintable message> "
               "[plugin-load-failed]\n")


def test_the_environment_variable_loads_modules_and_reports_the_missing(installed, tmp_path, monkeypatch,
                                                                         capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpu_plugin.py").write_text(GPU_MODULE)
    monkeypatch.setenv(LOCAL_ENV, os.pathsep.join(["gpu_plugin.py", " ", "missing.py"]))
    code, out, err = run(capsys, "plugins", "Gpu")
    assert (code, out) == (0, GPU_TEXT.format(item="gpu_plugin.py"))
    assert err == ("warning: local plugin module 'missing.py': cannot import: FileNotFoundError: no such file: "
                   "missing.py [plugin-load-failed]\n")


def test_discovery_runs_once_per_set_of_local_modules(installed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpu_plugin.py").write_text(GPU_MODULE)
    plain = load_registry()
    with pluginmanager.local_plugins(["gpu_plugin.py"]):
        local = load_registry()
        assert load_registry() is local
    assert load_registry() is plain
    assert (plain.get("Gpu"), local.package_of("Gpu")) == (None, "local: gpu_plugin.py")


# ------------------------------------------------------------------------------ every command shows them
def commands(tmp_path: Path) -> list[list[str]]:
    profile = profile_file(tmp_path, 'name = "p"\nextends = "default"\n')
    return [["score", "-o", "json"], ["schedule", "-o", "json"], ["validate", "-o", "json", profile],
            ["show", "-o", "json", "default"], ["plugins", "-o", "json", "NodeLabel"]]


@pytest.mark.parametrize("index", range(5), ids=["score", "schedule", "validate", "show", "plugins"])
def test_every_json_output_lists_the_plugin_problems(installed, tmp_path, capsys, index):
    argv = commands(tmp_path)[index]
    installed()
    code, out, err = run(capsys, *argv)
    assert (code, err, json.loads(out)["pluginProblems"]) == (0, "", [])
    installed(BROKEN)
    code, out, err = run(capsys, *argv)
    if argv[0] == "validate":  # its profile names only built-ins: it loads no installed package
        assert (code, err, json.loads(out)["pluginProblems"]) == (0, "", [])
        return
    assert (code, err, json.loads(out)["pluginProblems"]) == (0, BROKEN_LINE, [{
        "code": "plugin-load-failed", "severity": "warning", "package": "broken 1.0", "plugin": None,
        "message": "plugin package 'broken' (broken 1.0): cannot import: ModuleNotFoundError: No module named "
                   "'nope'"}])


@pytest.mark.parametrize(("argv", "output"), [
    (["schema"], "{"), (["export", "default"], "# Exported"), (["show", "default"], "profile default"),
], ids=["schema", "export", "show-text"])
def test_other_commands_show_them_on_stderr_once(installed, capsys, argv, output):
    installed(BROKEN)
    code, out, err = run(capsys, *argv)
    assert (code, out.startswith(output), err) == (0, True, BROKEN_LINE)


# ------------------------------------------------------------------------------ validate
@pytest.mark.parametrize(("strict", "code"), [(False, 0), (True, 1)], ids=["lenient", "strict"])
def test_validate_counts_plugin_problems_and_fails_on_them_under_strict(installed, tmp_path, capsys, strict,
                                                                       code):
    installed(BROKEN, ep("accel", package("accel", Gpu)))
    # Gpu: no built-in has it, nor an entry point of its name, so validate loads every package.
    path = profile_file(tmp_path, 'name = "p"\nkubernetesVersion = "1.20"\n[plugins.Gpu]\n')
    argv = ["validate", path, *(["--strict"] if strict else [])]
    assert run(capsys, *argv) == (code, "1 file checked, 0 invalid, 0 errors, 0 warnings, 1 plugin problem\n",
                                  BROKEN_LINE)
    document = json.loads(run(capsys, *argv, "-o", "json")[1])
    assert document["summary"] == {"files": 1, "invalid": 0, "errors": 0, "warnings": 0, "pluginProblems": 1}


def test_validate_reports_plugin_problems_in_every_format(installed, tmp_path, capsys):
    installed(BROKEN, ep("accel", package("accel", Gpu)))
    path = profile_file(tmp_path, 'name = "p"\nkubernetesVersion = "1.20"\n[plugins.Gpu]\n')
    github = run(capsys, "validate", "-o", "github", path)[1]
    assert github == ("::warning title=plugin-load-failed::plugin package 'broken' (broken 1.0): cannot import: "
                      "ModuleNotFoundError: No module named 'nope'\n"
                      "1 file checked, 0 invalid, 0 errors, 0 warnings, 1 plugin problem\n")
    sarif = json.loads(run(capsys, "validate", "-o", "sarif", path)[1])
    assert sarif["runs"][0]["invocations"][0]["toolConfigurationNotifications"] == [{
        "descriptor": {"id": "plugin-load-failed"}, "level": "warning",
        "message": {"text": BROKEN_PROBLEM.message}, "properties": {"package": "broken 1.0", "plugin": None}}]
    junit = run(capsys, "validate", "-o", "junit", path)[1]
    assert ('<testcase name="plugins" classname="ruleset validate" time="0.000">\n'
            '      <system-out>warning: plugin package \'broken\' (broken 1.0): cannot import: '
            'ModuleNotFoundError: No module named \'nope\' [plugin-load-failed]</system-out>') in junit
    strict = run(capsys, "validate", "-o", "junit", "--strict", path)[1]
    assert 'failures="1"' in strict and 'tests="2"' in strict


# ------------------------------------------------------------------------------ ruleset plugins
NODE_LABEL_TEXT = """\
NodeLabel  (built-in)
  Requires (Filter) or prefers (Score) nodes by which label keys they carry or lack.
  points: filter, score
  args:
    presentLabels = []  (array of string)  # Label keys a node must have (Filter).
    absentLabels = []  (array of string)  # Label keys a node must not have (Filter).
    presentLabelsPreference = []  (array of string)  # Label keys a node should have (Score).
    absentLabelsPreference = []  (array of string)  # Label keys a node should not have (Score).
"""


def test_plugins_text_of_a_built_in(installed, capsys):
    assert run(capsys, "plugins", "NodeLabel") == (0, NODE_LABEL_TEXT, "")


def test_plugins_text_shows_aliases_and_unusable_plugins(installed, capsys):
    installed(ep("future", package("future", FromTheFuture)))
    code, out, _ = run(capsys, "plugins", "NodeResourceLimits", "FromTheFuture")
    assert (code, out) == (0, """\
NodeResourceLimits  (built-in)
  Scores 1 the nodes whose allocatable CPU or memory can hold the pod's limits, a tie-breaker (PreScore, \
Score).
  aliases: ResourceLimits
  points: preScore, score
  args: none

FromTheFuture  (future 1.0; cannot be used)
  Written for the next major plugin API.
  points: score
  args: none
  error: plugin package 'future' (future 1.0): plugin 'FromTheFuture' is written for plugin API version 2; \
this ruleset provides version 1 [plugin-api-version]
""")


def test_plugins_json_shape(installed, capsys):
    installed(ep("gpu", package("gpu", Gpu), version="0.3.1"))
    code, out, err = run(capsys, "plugins", "-o", "json", "Gpu", "InterPodAffinity")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert list(document) == ["schemaVersion", "plugins", "pluginProblems"]
    assert document["plugins"] == [
        {"name": "Gpu", "aliases": [], "package": "gpu", "version": "0.3.1", "builtin": False, "usable": True,
         "apiVersion": "1", "description": "Prefers nodes with a GPU.", "points": ["score"], "args": [],
         "problems": []},
        {"name": "InterPodAffinity", "aliases": [], "package": "built-in", "version": None, "builtin": True,
         "usable": True, "apiVersion": "1",
         "description": "Keeps pods where their required pod affinity and anti-affinity, and existing pods' "
                        "anti-affinity, hold (PreFilter, Filter) and favours nodes near the pods they prefer "
                        "(PreScore, Score).",
         "points": ["preFilter", "filter", "preScore", "score"],
         "args": [{"name": "hardPodAffinityWeight", "type": "integer", "required": False, "default": 1,
                   "description": "Score weight of each required affinity term of an existing pod that the "
                                  "incoming pod matches (0-100; 0 ignores those terms when scoring)."},
                  {"name": "ignorePreferredTermsOfExistingPods", "type": "boolean", "required": False,
                   "description": "Kubernetes 1.27 on: when the incoming pod has no preferred (anti-)affinity "
                                  "terms, InterPodAffinity does not score it at all (existing pods' terms are "
                                  "not looked at)."}],
         "problems": []},
    ]


def test_plugins_lists_every_installed_plugin(installed, capsys):
    document = json.loads(run(capsys, "plugins", "-o", "json")[1])
    assert [p["name"] for p in document["plugins"]] == load_registry().names()


def test_plugins_refuses_an_unknown_name(installed, capsys):
    assert run(capsys, "plugins", "NoSuch") == (2, "", "error: <input>: no installed plugin is named 'NoSuch'\n")


# ------------------------------------------------------------------------------ no needless imports
@pytest.mark.parametrize("argv", [["selector", "a=b"], ["--help"], ["selector", "--help"], ["--version"]],
                         ids=["selector", "help", "selector-help", "version"])
def test_commands_that_need_no_plugin_import_none(argv):
    script = ("import contextlib, io, sys\nfrom ruleset.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()): main(sys.argv[1:])\n"
              "print(sorted(m for m in sys.modules if m.startswith(('ruleset.plugins', 'ruleset.pluginmanager', "
              "'pluggy'))))\n"
              "print('importlib.metadata' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, LOCAL_ENV: "os"}, check=True)
    # --version reads the version from the installed dist-info's METADATA, importing nothing else.
    assert result.stdout == "[]\nFalse\n"
