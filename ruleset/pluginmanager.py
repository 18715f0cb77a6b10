"""Discover plugin classes: built-ins first, then the ``ruleset`` entry-point group, then local modules.

Discovery uses one pluggy manager with the :class:`~ruleset.hookspecs.DiscoverySpecs`.
Each third-party package is loaded on its own and **holds or is left out whole**: one that
fails to import, whose ``ruleset_register_plugins`` raises, or whose
``ruleset_plugin_args_schema`` raises or answers with no valid JSON Schema for any plugin (a
built-in included: the package is blamed, not the plugin it was asked about) is unregistered
from the manager, so none of its hooks stays active, and none of its plugins is known. The
rest of the run goes on; what went wrong is a :class:`PluginProblem` in
:attr:`PluginRegistry.problems`, which every command shows.

A plugin that loaded is still refused, alone, when

* it was written for another major version of the plugin API
  (:attr:`ruleset.Plugin.api_version` against :data:`ruleset.PLUGIN_API_VERSION`);
* its own args schema (:attr:`ruleset.Plugin.args_schema`) is no valid JSON Schema;
* its name (or an alias) is taken: by a built-in plugin (the built-in keeps working), or
  by a plugin of another package (then neither can be used until one is renamed, as
  kube-scheduler refuses a registry holding two plugins of one name).

A refused plugin is listed in :attr:`PluginRegistry.disabled`; a profile naming it gets a
located ``plugin-unavailable`` error saying why.

**Local modules** load plugins without installing them, for development: the command
line's ``--plugin MODULE_OR_PATH`` (repeatable) and the :data:`LOCAL_ENV` environment
variable (items separated by ``os.pathsep``, as in ``PYTHONPATH``). A dotted module name is
imported from ``sys.path``; a path (ending in ``.py``, or holding a path separator) is
loaded from that file. Profiles never cause an import: they name plugins, not modules.

**Checking profiles** (``ruleset validate``) needs less: :func:`load_profile_registry` knows every
built-in plugin from :mod:`ruleset.plugins.table` and builds a plugin's class only when a profile
names it, as a *declared* class (:func:`declared_class`: the table row and the plugin's args
module, without the implementation and numpy) when its row says all; and it loads entry points
only when a profile names a plugin no built-in has: first those whose name is the plugin's (in
any case, ``-``, ``_`` and ``.`` ignored: ``gpu-packing`` for ``GpuPacking``), then, if none
registers it, all of them. Load problems are those of the packages it loaded.

Set ``RULESET_DISABLE_PLUGIN_AUTOLOAD=1`` (or ``true``, ``yes``, in any case) to skip entry
points (hermetic tests, debugging); any other value, ``0``, ``false`` and empty included, leaves
autoloading on. Local modules are loaded either way: they are named explicitly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from ruleset import hookspecs
from ruleset.errors import PLUGIN_FAULTS, describe_exception
from ruleset.framework.plugin import BUILTIN_PACKAGE, PLUGIN_API_VERSION, Plugin
from ruleset.plugins.table import BUILTINS, ArgsSpec, BuiltinPlugin

ENTRY_POINT_GROUP = "ruleset"
BUILTIN_MODULE = "ruleset.plugins"
AUTOLOAD_ENV = "RULESET_DISABLE_PLUGIN_AUTOLOAD"
#: Modules or ``.py`` files to load as plugin modules, separated by ``os.pathsep``.
LOCAL_ENV = "RULESET_PLUGINS"
#: The values of :data:`AUTOLOAD_ENV` that disable autoloading (compared case-insensitively).
_TRUTHY = frozenset(("1", "true", "yes"))
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")

# Problem codes of plugin loading (``pluginProblems`` in JSON outputs).
LOAD_FAILED = "plugin-load-failed"
NAME_CLASH = "plugin-name-clash"
INVALID_ARGS_SCHEMA = "invalid-args-schema"
API_VERSION = "plugin-api-version"


def entry_points(*, group: str) -> Any:
    """The installed entry points of ``group`` (``importlib.metadata.entry_points``).

    Importing importlib.metadata (through the email package) and reading every distribution
    costs a command about 20 ms; when :func:`_no_distribution_declares` ``group`` the answer is
    known to be empty without it. (Tests fake third-party packages by replacing this function.)
    """
    if _no_distribution_declares(group):
        return ()
    from importlib.metadata import entry_points as installed

    return installed(group=group)


def _no_distribution_declares(group: str) -> bool:
    """True only when certainly no distribution importlib.metadata would find declares entry
    points of ``group``: every ``sys.path`` entry is a plain folder (or absent), importlib's own
    finders are the only ones able to list distributions, and no ``*.dist-info`` or ``*.egg-info``
    folder's ``entry_points.txt`` has a ``[group]`` section. Anything else (a zip or an egg on
    the path, another finder, an unreadable file) answers False: then importlib.metadata decides."""
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return False
    for entry in sys.path:
        folder = entry or "."
        if not os.path.exists(folder):
            continue
        if not os.path.isdir(folder) or folder.lower().rstrip("/\\").endswith(".egg"):
            return False
        try:
            children = os.listdir(folder)
        except OSError:
            return False
        for child in children:
            if not child.lower().endswith((".dist-info", ".egg-info")):
                continue
            path = os.path.join(folder, child, "entry_points.txt")
            try:
                with open(path, encoding="utf-8") as stream:
                    text = stream.read()
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError):  # NotADirectoryError: an egg-info file holds none
                if os.path.isdir(os.path.join(folder, child)):
                    return False
                continue
            if group in _sections(text):
                return False
    return True


def _sections(text: str) -> set[str]:
    """The section names of an ``entry_points.txt``, read as importlib.metadata reads them."""
    lines = (line.strip() for line in text.splitlines())
    return {line.strip("[]") for line in lines if line.startswith("[") and line.endswith("]")}


def autoload_disabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether :data:`AUTOLOAD_ENV` (in ``environ``, default ``os.environ``) disables entry points:
    only a truthy value does (``1``, ``true``, ``yes``, in any case, around spaces)."""
    value = (os.environ if environ is None else environ).get(AUTOLOAD_ENV, "")
    return value.strip().lower() in _TRUTHY


def local_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The modules and files :data:`LOCAL_ENV` names: split on ``os.pathsep``, blanks dropped."""
    value = (os.environ if environ is None else environ).get(LOCAL_ENV, "")
    return tuple(item.strip() for item in value.split(os.pathsep) if item.strip())


@dataclass(frozen=True, slots=True)
class PluginProblem:
    """Something that went wrong loading plugins, not located in any profile.

    ``package`` is how reports name where it came from (``ruleset-gpu 0.1.0``,
    ``local: path/to/mod.py``); ``plugin`` the plugin concerned, None when a whole package is.
    """

    code: str
    severity: str
    package: str
    plugin: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "package": self.package,
                "plugin": self.plugin, "message": self.message}


@dataclass(frozen=True, slots=True)
class DisabledPlugin:
    """A plugin class that loaded but cannot be used, and why (the message of its problem)."""

    cls: type[Plugin]
    package: str
    reason: str

    @property
    def names(self) -> tuple[str, ...]:
        return (self.cls.name, *self.cls.aliases)


class _Defaults:
    """ruleset's own fallback implementations of discovery hooks."""

    @hookspecs.hookimpl(trylast=True)
    def ruleset_plugin_args_schema(self, plugin: type[Plugin]) -> dict[str, Any]:
        return plugin.args_schema


@dataclass
class PluginRegistry:
    """Every usable plugin class by framework name, where each came from, and what failed."""

    classes: dict[str, type[Plugin]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    problems: list[PluginProblem] = field(default_factory=list)
    manager: pluggy.PluginManager | None = None
    #: Plugins that loaded but were refused (see the module docstring).
    disabled: list[DisabledPlugin] = field(default_factory=list)
    #: Each usable plugin's args schema, checked at registration.
    schemas: dict[str, Any] = field(default_factory=dict)
    #: Package (as :meth:`package_of` names it) -> its distribution's name and version (None
    #: for built-in plugins and local modules).
    distributions: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    #: Things derived from the registry and built once: the profile schema and its validator.
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: Plugins known by name whose classes are built when first asked for (:func:`load_profile_registry`).
    deferred: _Deferred | None = field(default=None, repr=False, compare=False)

    def get(self, name: str) -> type[Plugin] | None:
        canonical = self.aliases.get(name, name)
        found = self.classes.get(canonical)
        if found is None and self.deferred is not None:
            return self.deferred.resolve(self, canonical)
        return found

    def canonical_name(self, name: str) -> str:
        return self.aliases.get(name, name)

    def names(self) -> list[str]:
        if self.deferred is not None:
            return sorted({*self.classes, *self.deferred.rows})
        return sorted(self.classes)

    def args_schema(self, name: str) -> dict[str, Any]:
        """The args schema of plugin ``name``, through the ``ruleset_plugin_args_schema`` hook
        (whose last implementation, ruleset's own, always answers)."""
        cls = self.get(name)
        if cls is None:
            raise KeyError(name)
        schema = self.schemas.get(cls.name)
        if schema is not None:
            return schema
        assert self.manager is not None
        return self.manager.hook.ruleset_plugin_args_schema(plugin=cls)

    def is_builtin(self, name: str) -> bool:
        return self.origins.get(self.canonical_name(name)) == "builtin"

    def add(self, cls: type[Plugin], origin: str) -> None:
        """Make ``cls`` usable under its name (and its aliases, unless taken), as from ``origin``."""
        self.classes[cls.name] = cls
        self.origins[cls.name] = origin
        for alias in cls.aliases:
            self.aliases.setdefault(alias, cls.name)

    def with_classes(self, *classes: type[Plugin], origin: str) -> PluginRegistry:
        """A copy of this registry to which ``classes`` are added, their schemas their own (the
        plugin test kit and tests run code-defined plugins this way, without installing them)."""
        copy = dataclasses.replace(self, classes=dict(self.classes), origins=dict(self.origins),
                                   aliases=dict(self.aliases), problems=list(self.problems),
                                   disabled=list(self.disabled), schemas=dict(self.schemas),
                                   distributions=dict(self.distributions), cache={})
        for cls in classes:
            copy.add(cls, origin)
            copy.schemas[cls.name] = cls.args_schema
        return copy

    def package_of(self, name: str) -> str:
        """The package plugin ``name`` came from, as reports name it: ``built-in``, the
        distribution and its version (``ruleset-gpu 0.1.0``), or ``local: <module or file>``."""
        origin = self.origins.get(self.canonical_name(name), "unknown")
        return BUILTIN_PACKAGE if origin == "builtin" else origin

    def unavailable(self, name: str) -> str | None:
        """Why plugin ``name`` cannot be used although a package registers it (None when it can,
        or when nothing registers that name)."""
        if self.get(name) is not None:
            return None
        for plugin in self.disabled:
            if name in plugin.names:
                return plugin.reason
        return None


@dataclass(frozen=True, slots=True)
class _Source:
    """A module to load plugins from: how problems name it, and how to import it."""

    #: ``plugin package 'gpu' (ruleset-gpu 0.1.0)`` or ``local plugin module 'mod.py'``.
    title: str
    #: The ``package`` of problems and of ``ruleset plugins``.
    package: str
    load: Callable[[], Any]
    #: The distribution's name and version (``ruleset plugins``).
    distribution: tuple[str, str | None]


_BUILTIN_SOURCE = _Source("built-in plugins", BUILTIN_PACKAGE, lambda: None, (BUILTIN_PACKAGE, None))


def _entry_point_source(ep: Any) -> _Source:
    package = f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value
    distribution = (ep.dist.name, ep.dist.version) if ep.dist else (ep.value, None)
    return _Source(f"plugin package {ep.name!r} ({package})", package, ep.load, distribution)


def local_source(item: str) -> _Source:
    """A ``--plugin`` / :data:`LOCAL_ENV` item: a ``.py`` file or a path when it looks like one,
    else a dotted module name."""
    package = f"local: {item}"
    title = f"local plugin module {item!r}"
    if item.endswith(".py") or os.sep in item or "/" in item:
        return _Source(title, package, lambda: _load_file(Path(item)), (package, None))
    if not _DOTTED.match(item):
        def refuse() -> Any:
            raise ValueError("not a dotted module name nor a path to a .py file")
        return _Source(title, package, refuse, (package, None))
    return _Source(title, package, lambda: importlib.import_module(item), (package, None))


def _load_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    # A name of its own, so that it shadows no installed module; in sys.modules while it runs
    # (dataclasses and pickling look the module up there).
    stem = re.sub(r"\W", "_", path.stem)
    name = f"ruleset_local_plugin_{stem}_{zlib.crc32(os.fsencode(path.resolve())):08x}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


class _Loader:
    """One discovery: registers modules into ``registry`` and collects each one's classes."""

    def __init__(self, registry: PluginRegistry, pm: pluggy.PluginManager) -> None:
        self.registry = registry
        self.pm = pm
        #: Third-party modules registered, by their name in the manager, in load order: where each
        #: came from and the classes it registered.
        self.loaded: dict[str, tuple[_Source, Any, list[type[Plugin]]]] = {}
        #: Third-party classes that passed their own checks, in load order, with their source.
        self.candidates: list[tuple[type[Plugin], _Source]] = []
        #: Each class's args schema, or why it has none (see :meth:`probe_schemas`).
        self.answers: dict[type[Plugin], tuple[Any, str | None]] = {}

    def builtins(self) -> None:
        module = importlib.import_module(BUILTIN_MODULE)
        self.pm.register(module, name=BUILTIN_MODULE)
        for cls in self._collect(module):  # built-ins that fail are a bug in ruleset: let it show
            if cls.name not in self.registry.classes:
                self.registry.add(cls, "builtin")

    def package(self, source: _Source, key: str) -> bool:
        """Import and register one module; False (with a problem) when it is left out whole."""
        if self.pm.get_plugin(key) is not None:
            return True  # named twice (--plugin and RULESET_PLUGINS): loaded once
        self.registry.distributions[source.package] = source.distribution
        try:
            module = source.load()
        except PLUGIN_FAULTS as exc:  # a broken package must not take the run down
            self._problem(LOAD_FAILED, "warning", source, None, f"cannot import: {describe_exception(exc)}")
            return False
        try:
            if self.pm.is_registered(module):
                return True  # the same module under two names
            self.pm.register(module, name=key)
            found = self._collect(module)
        except PLUGIN_FAULTS as exc:
            self._leave_out(key, module, source, f"registering its plugins failed: {describe_exception(exc)}")
            return False
        self.loaded[key] = (source, module, found)
        return True

    def _leave_out(self, key: str, module: Any, source: _Source, why: str) -> None:
        """Unregister a package whole, with a problem saying ``why``."""
        # Whatever pluggy took of it goes: a half-registered package has no hook left.
        with contextlib.suppress(Exception):
            self.pm.unregister(module, name=key)
        self.loaded.pop(key, None)
        self._problem(LOAD_FAILED, "warning", source, None, f"{why}; none of its hooks is used")

    def check_api_versions(self) -> None:
        """The loaded packages' classes, in load order, that are written for this plugin API
        become candidates (a class a second package re-exports is the first's)."""
        for source, _, found in self.loaded.values():
            for cls in found:
                if not any(cls is known for known, _ in self.candidates):
                    self._check_api_version(cls, source)

    def _collect(self, module: Any) -> list[type[Plugin]]:
        found: list[type[Plugin]] = []

        def register(cls: type[Plugin]) -> None:
            if not (isinstance(cls, type) and issubclass(cls, Plugin)):
                raise TypeError(f"register() takes a ruleset.Plugin subclass, got {cls!r}")
            if not isinstance(getattr(cls, "name", None), str) or not cls.name:
                raise TypeError(f"plugin class {cls.__module__}.{cls.__qualname__} has no 'name'")
            if cls not in found:
                found.append(cls)

        for impl in self.pm.hook.ruleset_register_plugins.get_hookimpls():
            if impl.plugin is module:
                impl.function(register)
        return found

    def _check_api_version(self, cls: type[Plugin], source: _Source) -> None:
        wanted = str(getattr(cls, "api_version", PLUGIN_API_VERSION))
        if _major(wanted) != _major(PLUGIN_API_VERSION):
            self._disable(API_VERSION, cls, source,
                          f"plugin {cls.name!r} is written for plugin API version {wanted}; this ruleset "
                          f"provides version {PLUGIN_API_VERSION}")
            return
        self.candidates.append((cls, source))

    def settle_names(self) -> None:
        """Accept the third-party candidates whose names are free (see the module docstring)."""
        taken = {**{name: name for name in self.registry.classes}, **self.registry.aliases}
        claims: dict[str, list[tuple[type[Plugin], _Source]]] = {}
        for cls, source in self.candidates:
            names = (cls.name, *cls.aliases)
            builtin = next((n for n in names if n in taken), None)
            if builtin is not None:
                self._disable(NAME_CLASH, cls, source,
                              f"plugin name {builtin!r} is taken by the built-in plugin {taken[builtin]}; "
                              f"rename the plugin (the built-in keeps working)")
                continue
            for name in dict.fromkeys(names):
                claims.setdefault(name, []).append((cls, source))
        clashing: set[type[Plugin]] = set()
        for name, claimants in claims.items():
            if len(claimants) < 2:
                continue
            (_, first), *rest = claimants
            others = " and ".join(f"{src.package!r}" for _, src in rest)
            message = (f"a plugin named {name!r} already exists: packages {first.package!r} and {others} "
                       f"both register it; neither can be used until one is renamed")
            self.registry.problems.append(PluginProblem(NAME_CLASH, "error", rest[-1][1].package, name,
                                                        message))
            for cls, source in claimants:
                if cls not in clashing:
                    clashing.add(cls)
                    self.registry.disabled.append(DisabledPlugin(cls, source.package, message))
        for cls, source in self.candidates:
            if cls not in clashing and not any(d.cls is cls for d in self.registry.disabled):
                self.registry.add(cls, source.package)

    def probe_schemas(self) -> None:
        """Ask the ``ruleset_plugin_args_schema`` hook for every class, built-in or loaded, and
        keep each answer for :meth:`check_schemas`.

        The hook's implementations are called one by one, in the order pluggy's first-result
        call would, so that what goes wrong is blamed on the package whose implementation did
        it: one that raises, or answers with no valid JSON Schema, for any class (a built-in
        included) is left out whole, and every class is asked again without it. What
        ruleset's own implementations (a class's :attr:`~ruleset.Plugin.args_schema`) answer
        is the class's own schema: a class whose is invalid is refused alone, later. Wrappers
        of the hook are not run: a schema is an answer, not a side effect.
        """
        builtins = list(self.registry.classes.values())
        while True:
            loaded = dict.fromkeys(cls for _, _, found in self.loaded.values() for cls in found)
            for cls in [*builtins, *(cls for cls in loaded if cls not in builtins)]:
                answer = self._ask(cls, cls in builtins)
                if isinstance(answer, _Culprit):
                    source, module, _ = self.loaded[answer.key]
                    self._leave_out(answer.key, module, source, answer.why)
                    break
                self.answers[cls] = answer
            else:
                return

    def _ask(self, cls: type[Plugin], builtin: bool) -> tuple[Any, str | None] | _Culprit:
        """``(schema, None)``, ``(None, why cls is refused)``, or the package to leave out."""
        impls = self.pm.hook.ruleset_plugin_args_schema.get_hookimpls()
        for impl in reversed(impls):  # pluggy calls the last registered first, trylast ones last
            if impl.hookwrapper or impl.wrapper:
                continue
            third_party = impl.plugin_name in self.loaded
            try:
                schema = impl.function(*[{"plugin": cls}[name] for name in impl.argnames])
            except PLUGIN_FAULTS as exc:
                error = describe_exception(exc)
                if third_party:
                    return _Culprit(impl.plugin_name,
                                    f"its args schema hook failed for plugin {cls.name!r}: {error}")
                return None, f"plugin {cls.name!r}: its args schema hook failed: {error}"
            if schema is None:
                continue
            # Built-in schemas of ruleset's own are trusted (their tests check them), which keeps
            # jsonschema out of a run without third-party plugins.
            reason = None if builtin and schema is cls.args_schema else _schema_problem(schema)
            if reason is None:
                return schema, None
            if third_party:
                return _Culprit(impl.plugin_name, f"its args schema hook gave plugin {cls.name!r} an invalid "
                                                  f"args schema: {reason}")
            return None, f"plugin {cls.name!r} has an invalid args schema: {reason}"
        return None, f"plugin {cls.name!r} has an invalid args schema: {_schema_problem(None)}"

    def check_schemas(self) -> None:
        """Each usable plugin's args schema (as :meth:`probe_schemas` found it) must be a valid
        JSON Schema; a plugin whose is not is disabled."""
        registry = self.registry
        for name in list(registry.classes):
            cls = registry.classes[name]
            source = _BUILTIN_SOURCE
            if registry.origins[name] != "builtin":
                source = next(src for c, src in self.candidates if c is cls)
            schema, refused = self.answers[cls]
            if refused is not None:
                self._refuse(cls, source, refused)
                continue
            registry.schemas[name] = schema

    def _refuse(self, cls: type[Plugin], source: _Source, message: str) -> None:
        registry = self.registry
        del registry.classes[cls.name]
        del registry.origins[cls.name]
        for alias in cls.aliases:
            if registry.aliases.get(alias) == cls.name:
                del registry.aliases[alias]
        self._disable(INVALID_ARGS_SCHEMA, cls, source, message)

    def _disable(self, code: str, cls: type[Plugin], source: _Source, message: str) -> None:
        self._problem(code, "error", source, cls.name, message)
        self.registry.disabled.append(DisabledPlugin(cls, source.package, f"{message} ({source.title})"))

    def _problem(self, code: str, severity: str, source: _Source, plugin: str | None,
                 message: str) -> PluginProblem:
        problem = PluginProblem(code, severity, source.package, plugin, f"{source.title}: {message}")
        self.registry.problems.append(problem)
        return problem


@dataclass(frozen=True, slots=True)
class _Culprit:
    """A package to leave out whole: its name in the manager, and why."""

    key: str
    why: str


def _major(version: str) -> str:
    return version.strip().split(".")[0]


def _schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is no valid JSON Schema for the profile validator, or None."""
    if not isinstance(schema, dict):
        return f"expected a JSON Schema object, got {type(schema).__name__}"
    from jsonschema import Draft202012Validator, SchemaError  # only third-party schemas need it

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path)
        return f"{exc.message}" + (f" (at {where})" if where else "")
    except PLUGIN_FAULTS as exc:  # e.g. a $ref that cannot be resolved
        return describe_exception(exc)
    return None


#: Set by :func:`local_plugins` for the command that runs (``--plugin``).
_cli_local: tuple[str, ...] = ()


@contextlib.contextmanager
def local_plugins(items: Sequence[str]) -> Iterator[None]:
    """While the block runs, :func:`load_registry` also loads ``items`` (the ``--plugin`` values)."""
    global _cli_local
    previous, _cli_local = _cli_local, tuple(items)
    try:
        yield
    finally:
        _cli_local = previous


def requested_local(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The local modules a registry loads by default: ``--plugin`` values, then :data:`LOCAL_ENV`'s,
    each once."""
    return tuple(dict.fromkeys((*_cli_local, *local_from_env(environ))))


def _discover(autoload: bool, local: tuple[str, ...], only: frozenset[str] | None = None) -> PluginRegistry:
    """Every plugin: built-ins, entry points (those named ``only`` when given), local modules."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs.DiscoverySpecs)
    registry = PluginRegistry(manager=pm, distributions={BUILTIN_PACKAGE: (BUILTIN_PACKAGE, None)})
    pm.register(_Defaults(), name="ruleset.defaults")
    loader = _Loader(registry, pm)
    loader.builtins()
    if autoload:
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if only is None or ep.name in only:
                loader.package(_entry_point_source(ep), f"entrypoint:{ep.name}")
    for item in local:
        loader.package(local_source(item), f"local:{item}")
    loader.probe_schemas()
    loader.check_api_versions()
    loader.settle_names()
    loader.check_schemas()
    return registry


class _RegistryCache:
    """:func:`load_registry`: one discovery per process per (autoload, local modules)."""

    def __init__(self) -> None:
        self._cached = cache(_discover)

    def __call__(self, autoload: bool | None = None, local: Sequence[str] | None = None) -> PluginRegistry:
        """Every plugin class, discovered once per process per set of local modules.

        ``autoload`` defaults to :func:`autoload_disabled`'s answer; ``local`` (modules and
        ``.py`` files) to :func:`requested_local` (``--plugin``, then :data:`LOCAL_ENV`).
        """
        return self._cached(*self._arguments(autoload, local))

    @staticmethod
    def _arguments(autoload: bool | None, local: Sequence[str] | None) -> tuple[bool, tuple[str, ...]]:
        return (not autoload_disabled() if autoload is None else autoload,
                requested_local() if local is None else tuple(local))

    def __wrapped__(self, autoload: bool | None = None, local: Sequence[str] | None = None) -> PluginRegistry:
        """A fresh discovery, bypassing the cache."""
        return _discover(*self._arguments(autoload, local))

    def cache_clear(self) -> None:
        """Forget every discovery (:func:`load_profile_registry`'s too)."""
        self._cached.cache_clear()
        _profile_registry.cache_clear()


load_registry = _RegistryCache()


# ------------------------------------------------------------------------------ checking profiles
def _plain(name: str) -> str:
    """An entry-point or plugin name compared in any case, ``-``, ``_`` and ``.`` ignored."""
    return re.sub(r"[-_.]", "", name).lower()


def args_spec(row: BuiltinPlugin) -> ArgsSpec | None:
    """The :class:`~ruleset.plugins.table.ArgsSpec` a declared row names (None: no args)."""
    if row.args is None or not row.declared:
        return None
    module, _, attribute = row.args.partition(":")
    spec: ArgsSpec = getattr(importlib.import_module(module), attribute)
    return spec


def builtin_class(row: BuiltinPlugin) -> type[Plugin]:
    """The class a row names, imported."""
    cls: type[Plugin] = getattr(importlib.import_module(row.module), row.cls)
    return cls


def _declared_hook(plugin: str, hook: str) -> Callable[..., Any]:
    def declared(self: Any) -> None:
        raise TypeError(f"plugin {plugin!r} is only declared: builtin_class() imports its hooks")

    declared.__name__ = hook
    declared.__qualname__ = f"{plugin}.{hook}"
    marked: Callable[..., Any] = hookspecs.hookimpl(declared)
    return marked


def declared_class(row: BuiltinPlugin) -> type[Plugin]:
    """A :class:`~ruleset.Plugin` subclass that declares what ``row`` and its args module say (name,
    aliases, releases, points, args and their checks) and implements nothing: enough for every
    check of a profile (:func:`ruleset.framework.validation.check_plugins`), never to be built.
    ``declared_from`` is the row (:func:`builtin_class` imports the real class)."""
    namespace: dict[str, Any] = {
        "__module__": __name__, "__doc__": f"The built-in plugin {row.name}, declared (not loaded).",
        "name": row.name, "aliases": row.aliases, "introduced_in": row.introduced_in,
        "removed_in": row.removed_in, "replaced_by": row.replaced_by, "points_since": dict(row.points_since),
        "declared_from": row, "__init__": _refuse_building,
    }
    spec = args_spec(row)
    if spec is not None:
        namespace["Args"] = spec.Args
        for method in ("validate_args", "validate_args_for", "defaults_for", "args_not_in"):
            function = getattr(spec, method)
            if function is not None:
                namespace[method] = classmethod(_without_class(function))
    for hook in row.hooks:
        namespace[hook] = _declared_hook(row.name, hook)
    return type(row.cls, (Plugin,), namespace)


def _without_class(function: Callable[..., Any]) -> Callable[..., Any]:
    def method(cls: type, *args: Any) -> Any:
        return function(*args)

    method.__doc__ = function.__doc__
    return method


def _refuse_building(self: Any, *args: Any, **kwargs: Any) -> None:
    raise TypeError(f"plugin {type(self).name!r} is only declared: build the class builtin_class() imports")


class _Deferred:
    """The plugins of a :func:`load_profile_registry` registry not built yet: built-in rows by
    name, and whether entry points were loaded (none, those matching a name, all)."""

    def __init__(self, autoload: bool) -> None:
        self.rows: dict[str, BuiltinPlugin] = {row.name: row for row in BUILTINS}
        self.autoload = autoload
        #: The entry-point names loaded so far; None: all of them.
        self.loaded: frozenset[str] | None = frozenset()

    def resolve(self, registry: PluginRegistry, name: str) -> type[Plugin] | None:
        row = self.rows.get(name)
        if row is not None:
            cls = declared_class(row) if row.declared else builtin_class(row)
            registry.classes[name] = cls
            registry.schemas[name] = cls.args_schema
            return cls
        if self.autoload and self.loaded is not None:
            self._load_entry_points(registry, name)
            return registry.get(name)
        return None

    def _load_entry_points(self, registry: PluginRegistry, name: str) -> None:
        """Make ``registry`` a full discovery's: with the entry points whose names match ``name``
        (and those loaded before), or, when none of them registers it, with all of them."""
        assert self.loaded is not None
        available = {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
        matching = self.loaded | {ep for ep in available if _plain(ep) == _plain(name)}
        full: PluginRegistry | None = None
        if matching != self.loaded:
            full = _discover(True, (), matching)
            if full.get(name) is None:
                full = None
        if full is None and available - self.loaded:
            full, matching = load_registry(True, ()), frozenset(available)
        if full is None:
            return
        for f in dataclasses.fields(registry):
            if f.name not in ("cache", "deferred"):
                setattr(registry, f.name, getattr(full, f.name))
        registry.cache.clear()
        # From now on a full discovery answers (its built-ins are the real classes), except that
        # entry points not yet loaded still are when a profile names what nothing registers.
        self.rows = {}
        self.loaded = None if matching == available else frozenset(matching)


def load_profile_registry(autoload: bool | None = None, local: Sequence[str] | None = None) -> PluginRegistry:
    """The registry ``ruleset validate`` checks profiles with (see the module docstring): built-in
    plugins built (declared, see :func:`declared_class`) when a profile names them, entry points
    loaded only for a plugin no built-in has. With local modules (``--plugin``,
    :data:`LOCAL_ENV`), :func:`load_registry`'s, as every other command's. ``autoload`` and
    ``local`` default as there; one per process per ``autoload``."""
    autoload, local = load_registry._arguments(autoload, local)
    if local:
        return load_registry(autoload, local)
    return _profile_registry(autoload)


@cache
def _profile_registry(autoload: bool) -> PluginRegistry:
    registry = PluginRegistry(distributions={BUILTIN_PACKAGE: (BUILTIN_PACKAGE, None)},
                              deferred=_Deferred(autoload))
    for row in BUILTINS:
        registry.origins[row.name] = "builtin"
        for alias in row.aliases:
            registry.aliases.setdefault(alias, row.name)
    return registry
