"""KubeSchedulerConfiguration (or legacy Policy) → ruleset profiles.

Each kube-scheduler profile is first merged with its version's defaults
(:mod:`ruleset.kubeconfig.merge`, :mod:`ruleset.kubeconfig.legacy`), giving the plugins
each extension point runs, in order, with weights. That is then written as a flat ruleset
profile: one ``[plugins.<Name>]`` table per plugin in one order that reproduces every point's
order (:mod:`ruleset.kubeconfig.ordering`), ``weight`` for Score plugins, ``points`` where a
plugin runs at fewer points than ruleset's plugin implements, ``args`` where they differ from
the defaults. A flat profile (no ``extends``) says everything the configuration meant,
whatever ruleset's bundled profiles become.

Each profile targets one Kubernetes release (``kubernetesVersion``): the newest release that
read the configuration's apiVersion (:func:`~ruleset.kubeconfig.versions.import_release`:
v1beta1 1.22, v1beta2 1.27, v1beta3 1.28, v1 the newest ruleset models, a legacy Policy
1.22), or the one the caller names, which must be a release that read it. At that release
NodeResourcesFit scores by its ``scoringStrategy`` when the separate Least/MostAllocated and
RequestedToCapacityRatio plugins are gone (1.23 on); before, the strategy becomes one of them.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruleset.config import DEFAULT_SCHEDULER_NAME
from ruleset.errors import Problem, RulesetError
from ruleset.framework.plugin import check_plugin_args
from ruleset.framework.points import EXTENSION_POINTS, POINT_KEYS, effective_points
from ruleset.framework.validation import available_points
from ruleset.kubeconfig.catalogue import (
    DEFAULT_RESOURCES,
    HARMLESS,
    RENAMED,
    SCORING_STRATEGIES,
    UNSUPPORTED_IN_TREE,
    UPSTREAM_ONLY_DEFAULTS,
    type_word,
)
from ruleset.kubeconfig.documents import find_configs
from ruleset.kubeconfig.legacy import read_policy
from ruleset.kubeconfig.merge import read_profiles
from ruleset.kubeconfig.model import DROPPED, INVALID, LOSSY, NOTE, ImportedProfile, Issue, UpstreamProfile
from ruleset.kubeconfig.ordering import SIGNIFICANT, global_order
from ruleset.kubeconfig.versions import VERSIONS, import_release, served, version
from ruleset.kversion import KubeVersion, Target, supported
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.loader import check_profile
from ruleset.profile.toml_writer import dumps

#: Points that only prepare a main point (and come along with it in a ruleset profile).
HELPER_POINTS = {helper: point.key for point in EXTENSION_POINTS for helper in point.implied}


@dataclass
class ImportResult:
    profiles: list[ImportedProfile] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def issues(self) -> list[Issue]:
        return [i for p in self.profiles for i in p.issues]


def read_upstream(path: Path,
                  kubernetes_version: str | None = None) -> tuple[list[UpstreamProfile], dict[str, int]]:
    """Every profile in ``path``, merged as kube-scheduler merges it: the release given (or, by
    default, the newest that read the document's API; see :func:`release_for`)."""
    found = find_configs(path)
    profiles: list[UpstreamProfile] = []
    for doc in found.documents:
        if doc.kind == "Policy":
            profiles.append(read_policy(doc.data, doc.source))
            continue
        v = version(doc.api_version)
        if v is None:
            known = ", ".join(f"kubescheduler.config.k8s.io/{n}" for n in VERSIONS)
            raise RulesetError(
                Problem(
                    f"unknown KubeSchedulerConfiguration apiVersion {doc.api_version!r} (known: {known})",
                    file=doc.source,
                    code="unknown-version",
                )
            )
        v = v.for_release(kubernetes_version or import_release(v.name))
        profiles.extend(read_profiles(doc.data, v, doc.source))
    return profiles, dict(found.skipped)


def api_of(up: UpstreamProfile) -> str:
    """The :data:`~ruleset.kubeconfig.versions.SERVED` key of a profile's configuration API."""
    return "Policy" if up.api_version.startswith("Policy") else up.api_version.rpartition("/")[2]


def release_for(up: UpstreamProfile, kubernetes_version: str | None = None) -> str:
    """The release an imported profile targets: ``kubernetes_version`` (checked: a supported
    release that read the profile's configuration API; raises RulesetError otherwise), else the
    newest release that read that API."""
    api = api_of(up)
    if kubernetes_version is None:
        return import_release(api)
    try:
        wanted = supported(kubernetes_version)
    except ValueError as exc:
        raise RulesetError(Problem(str(exc), code="unsupported-version")) from None
    first, last = served(api)
    if not first <= wanted <= last:
        what = "a legacy Policy" if api == "Policy" else up.api_version
        raise RulesetError(Problem(
            f"Kubernetes {wanted} does not read {what} (read by {first} to {last}): choose a release in "
            "that range, or leave --kubernetes-version out", file=up.where.split(": ")[0] or None,
            code="version-mismatch"))
    return str(wanted)


def import_config(path: Path, registry: PluginRegistry | None = None, validate: bool = True,
                  kubernetes_version: str | None = None) -> ImportResult:
    """Read ``path`` and translate every profile in it (issues are attached, nothing is refused here).

    ``kubernetes_version`` is the release the profiles target (see :func:`release_for`)."""
    registry = registry or load_registry()
    upstream, skipped = read_upstream(Path(path), kubernetes_version)
    result = ImportResult(skipped=skipped)
    for up in upstream:
        imported = translate(up, registry, release_for(up, kubernetes_version))
        if validate and not any(i.severity == INVALID for i in imported.issues):
            for problem in check_imported(imported, registry):
                imported.issues.append(
                    Issue(INVALID, f"profile {imported.name!r}", f"does not validate: {problem}", up.where)
                )
        result.profiles.append(imported)
    return result


# --------------------------------------------------------------------------- translate
def translate(up: UpstreamProfile, registry: PluginRegistry, release: str | None = None) -> ImportedProfile:
    """One merged kube-scheduler profile as ruleset profile data, targeting ``release`` (default:
    the newest release that read the profile's configuration API)."""
    issues = list(up.issues)
    where = up.where
    reported: set[str] = set()
    release = release or import_release(api_of(up))
    target = Target(KubeVersion.parse(release), explicit=True)

    def report(severity: str, item: str, reason: str) -> None:
        if item not in reported:
            reported.add(item)
            issues.append(Issue(severity, item, reason, where))

    strategy = _scoring_strategy(up, report)
    if strategy is not None and _removed(registry, strategy, target):
        strategy = "NodeResourcesFit"  # it scores itself, by its scoringStrategy
    points_of: dict[str, set[str]] = {}
    lists: dict[str, list[str]] = {}
    weights: dict[str, int | None] = {}
    source_of: dict[str, str] = {}
    for point, items in up.points.items():
        for upstream_name, weight in items:
            name = _map_name(upstream_name, point, up, registry, strategy, report)
            if name is None:
                continue
            cls = registry.get(name)
            assert cls is not None
            if _removed(registry, name, target) or _not_yet(registry, name, target):
                if _a_default(up, upstream_name):  # a later release's default (SchedulingGates)
                    report(NOTE, f"plugin {upstream_name}", f"not a default plugin of Kubernetes {release}")
                else:
                    report(INVALID, f"plugin {upstream_name}", f"not a plugin of Kubernetes {release}")
                continue
            available = set(available_points(cls, target))
            if point not in available:
                if point in HELPER_POINTS:
                    continue  # ruleset's plugin does its preparation inside its main point
                report(LOSSY, f"plugin {name} at {point}", f"ruleset's {name} does not implement {point}")
                continue
            points_of.setdefault(name, set()).add(point)
            source_of.setdefault(name, upstream_name)
            if name not in lists.setdefault(point, []):
                lists[point].append(name)
            if point == "score" and name not in weights:
                weights[name] = weight

    order, conflicts = global_order(lists)
    for point, pairs in conflicts.items():
        upstream_order = ", ".join(lists.get(point, []))
        if point in SIGNIFICANT:
            report(
                LOSSY,
                f"order at {point}",
                f"kube-scheduler runs {upstream_order}, which contradicts the order of an earlier point "
                f"({'; '.join(pairs)}); ruleset profiles have one plugin order",
            )
        else:
            report(
                NOTE,
                f"order at {point}",
                f"kube-scheduler runs {upstream_order}; here {point} follows the Filter order, which changes "
                f"no result ({point} runs every plugin)",
            )

    plugins: dict[str, dict[str, Any]] = {}
    for name in order:
        cls = registry.get(name)
        assert cls is not None
        available = set(available_points(cls, target))
        wanted = points_of[name]
        effective = set(effective_points(cls, tuple(wanted))) & available
        table: dict[str, Any] = {}
        if "score" in effective:
            weight = weights.get(name)
            if weight is not None and weight < 0:
                report(
                    LOSSY,
                    f"plugin {name} weight",
                    f"negative Score weight {weight}: ruleset weights are >= 1",
                )
                weight = 1
            table["weight"] = weight or 1
        if effective != available:
            table["points"] = [
                p
                for p in POINT_KEYS
                if p in wanted and not (p in HELPER_POINTS and HELPER_POINTS[p] in wanted)
            ]
        args = _plugin_args(name, source_of[name], up, strategy, cls, registry.args_schema(name), report,
                            "score" in wanted, target)
        if args is not None:
            table["args"] = args
        plugins[name] = table
    _unused_plugin_config(up, source_of, strategy, reported, report)

    # kube-scheduler's defaulting names a lone profile that names none (merge sets it; this is the fallback).
    scheduler_name = up.name or DEFAULT_SCHEDULER_NAME
    data: dict[str, Any] = {"name": scheduler_name, "schedulerName": scheduler_name}
    data["description"] = f"{up.api_version} profile {up.name!r}, imported by ruleset"
    data["kubernetesVersion"] = release
    if up.percentage_of_nodes_to_score is not None:
        data["percentageOfNodesToScore"] = up.percentage_of_nodes_to_score
    data["plugins"] = plugins
    header = [
        f"Imported by `ruleset import` from {where}",
        f"({up.api_version}, mapped as kube-scheduler {up.release}'s legacy registry maps it)."
        if up.api_version.startswith("Policy")
        else f"({up.api_version}, merged with the kube-scheduler {up.release} defaults).",
        f"Runs as Kubernetes {release}: {_why_release(up, release)}.",
    ]
    header.extend(summarize(issues, (LOSSY, DROPPED, NOTE)))
    return ImportedProfile(name=data["name"], data=data, header=header, issues=issues, where=where)


def _why_release(up: UpstreamProfile, release: str) -> str:
    api = api_of(up)
    if release == import_release(api):
        return f"the newest release that reads {'a Policy' if api == 'Policy' else api}"
    return "as asked"


def _a_default(up: UpstreamProfile, name: str) -> bool:
    api = VERSIONS.get(api_of(up))
    return api is not None and any(name == n for items in api.defaults.values() for n, _ in items)


def _removed(registry: PluginRegistry, name: str, target: Target) -> bool:
    cls = registry.get(name)
    removed = getattr(cls, "removed_in", None)
    return removed is not None and target.at_least(removed)


def _not_yet(registry: PluginRegistry, name: str, target: Target) -> bool:
    cls = registry.get(name)
    introduced = getattr(cls, "introduced_in", None)
    return introduced is not None and not target.at_least(introduced)


def _strategy_problems(strategy: Any) -> list[tuple[str, str]]:
    """Wrongly typed fields of NodeResourcesFit's ``scoringStrategy``: kube-scheduler's decoder
    refuses the whole configuration for one."""
    where = "NodeResourcesFit args.scoringStrategy"
    if not isinstance(strategy, dict):
        return [(where, f"expected a mapping, got {type_word(strategy)}")]
    kinds = (("type", str), ("resources", list), ("requestedToCapacityRatio", dict))
    fields: list[tuple[str, Any, type]] = [(f"{where}.{key}", strategy.get(key), kind) for key, kind in kinds]
    ratio = strategy.get("requestedToCapacityRatio")
    if isinstance(ratio, dict):
        fields.append((f"{where}.requestedToCapacityRatio.shape", ratio.get("shape"), list))
    return [(path, f"expected {_KIND_WORDS[kind]}, got {type_word(value)}")
            for path, value, kind in fields if value is not None and not isinstance(value, kind)]


_KIND_WORDS: dict[type, str] = {str: "a string", list: "a list", dict: "a mapping"}


def _scoring_strategy(up: UpstreamProfile, report: Any) -> str | None:
    """The ruleset plugin NodeResourcesFit's Score is (v1beta2+), from its scoringStrategy."""
    if up.release < "1.22":
        return None
    fit = up.args.get("NodeResourcesFit") or {}
    strategy = fit.get("scoringStrategy") if isinstance(fit, dict) else None
    problems = _strategy_problems(strategy) if strategy is not None else []
    for path, message in problems:
        report(INVALID, path, message)
    if problems:
        return None
    kind = (strategy or {}).get("type") or "LeastAllocated"
    if kind not in SCORING_STRATEGIES:
        report(
            INVALID,
            "NodeResourcesFit args.scoringStrategy.type",
            f"unsupported value {kind!r} (supported: {', '.join(SCORING_STRATEGIES)})",
        )
        return None
    return SCORING_STRATEGIES[kind]


def _map_name(
    upstream_name: str,
    point: str,
    up: UpstreamProfile,
    registry: PluginRegistry,
    strategy: str | None,
    report: Any,
) -> str | None:
    if upstream_name in HARMLESS:
        report(DROPPED, f"plugin {upstream_name}", HARMLESS[upstream_name])
        return None
    if upstream_name == "NodeResourcesFit" and up.release >= "1.22" and point in ("preScore", "score"):
        if strategy is None:
            return None
        if strategy == "NodeResourcesFit":
            return registry.canonical_name(strategy)
        upstream_name = strategy
    name = RENAMED.get(upstream_name, upstream_name)
    cls = registry.get(name)
    in_tree = upstream_name in up.in_tree or name in up.in_tree or upstream_name == strategy
    if cls is None:
        if upstream_name in UNSUPPORTED_IN_TREE:
            report(LOSSY, f"plugin {upstream_name}", UNSUPPORTED_IN_TREE[upstream_name])
        elif in_tree:
            report(LOSSY, f"plugin {upstream_name}", "in-tree plugin that ruleset does not implement")
        else:
            report(
                LOSSY,
                f"plugin {upstream_name}",
                f"not an in-tree plugin of kube-scheduler {up.release} (an out-of-tree plugin), and no "
                "installed ruleset plugin has this name",
            )
        return None
    canonical = registry.canonical_name(name)
    if not in_tree:
        if registry.is_builtin(canonical):
            report(
                INVALID,
                f"plugin {upstream_name}",
                f"not a plugin of {up.api_version} (kube-scheduler {up.release} refuses this configuration)",
            )
            return None
        report(
            NOTE,
            f"plugin {upstream_name}",
            f"an out-of-tree plugin; using the installed ruleset plugin {canonical} "
            f"({registry.origins.get(canonical, 'third-party')})",
        )
    return canonical


def _non_string_key(value: Any, path: str = "") -> tuple[str, Any] | None:
    """The first mapping key below ``value`` that is not a string, with where it is."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return path, key
            found = _non_string_key(item, f"{path}.{key}")
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _non_string_key(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def _strip_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_none(v) for v in value if v is not None]
    return value


def _lower_keys(items: Any) -> Any:
    """1.18 wrote ResourceSpec without JSON tags (``Name``/``Weight``); read both spellings."""
    if not isinstance(items, list):
        return items
    return [{k[:1].lower() + k[1:]: v for k, v in i.items()} if isinstance(i, dict) else i for i in items]


def _resources(items: Any) -> list[dict[str, Any]]:
    """ScoringStrategy resources with upstream's defaulting: none → cpu and memory, weight 0 → 1."""
    if not items:
        return [dict(r) for r in DEFAULT_RESOURCES]
    out = []
    for item in _lower_keys(items):
        if isinstance(item, dict):
            out.append({"name": item.get("name"), "weight": item.get("weight") or 1})
    return out


def _plugin_args(
    name: str,
    upstream_name: str,
    up: UpstreamProfile,
    strategy: str | None,
    cls: Any,
    schema: dict[str, Any],
    report: Any,
    scores: bool = False,
    target: Target | None = None,
) -> dict[str, Any] | None:
    raw: dict[str, Any] | None
    if name == strategy == "NodeResourcesFit":
        # Fit scores itself: its scoringStrategy, upstream's defaulting applied, beside its own args.
        raw = dict(up.args.get("NodeResourcesFit") or {})
        fit = raw.pop("scoringStrategy", None) or {}
        if scores:
            kind = fit.get("type") or "LeastAllocated"
            out_strategy: dict[str, Any] = {"type": kind, "resources": _resources(fit.get("resources"))}
            if kind == "RequestedToCapacityRatio":
                rtcr = fit.get("requestedToCapacityRatio") or {}
                out_strategy["requestedToCapacityRatio"] = {"shape": rtcr.get("shape") or []}
            if out_strategy != {"type": "LeastAllocated", "resources": DEFAULT_RESOURCES}:
                raw["scoringStrategy"] = out_strategy
    elif up.release >= "1.22" and name == strategy and upstream_name == "NodeResourcesFit":
        fit = (up.args.get("NodeResourcesFit") or {}).get("scoringStrategy") or {}
        raw = {"resources": _resources(fit.get("resources"))}
        if name == "RequestedToCapacityRatio":
            rtcr = fit.get("requestedToCapacityRatio") or {}
            raw["shape"] = rtcr.get("shape") or []
    else:
        raw = up.args.get(upstream_name)
        if raw is None and upstream_name != name:
            raw = up.args.get(name)
        if raw is not None:
            raw = dict(raw)
            if name == "NodeResourcesFit":
                raw.pop("scoringStrategy", None)
    if not raw:
        return None
    raw = _strip_none(raw)
    bad_key = _non_string_key(raw)
    if bad_key is not None:
        path, key = bad_key
        # YAML 1.1 reads keys such as `on` or `yes` as booleans; kube-scheduler's strict decoder
        # then finds no field of that name and refuses the configuration.
        report(INVALID, f"plugin {upstream_name} args{path}", f"{key!r} is not a field name")
        return None
    if up.release < "1.20":
        for key in ("resources", "shape"):
            if key in raw:
                raw[key] = _lower_keys(raw[key])
    # The registry's schema: a package may give its plugin's through ruleset_plugin_args_schema.
    properties = set((schema.get("properties") or {}).keys())
    out: dict[str, Any] = {}
    for key, value in raw.items():
        default = UPSTREAM_ONLY_DEFAULTS.get((upstream_name, key))
        if key in properties:
            pass  # ruleset's plugin has the arg (BalancedAllocation's resources from 1.22)
        elif default is not None or (upstream_name, key) in UPSTREAM_ONLY_DEFAULTS:
            if value != default:
                report(
                    LOSSY,
                    f"plugin {upstream_name} args.{key}",
                    f"{value!r}: ruleset's {name} always behaves as {default!r}",
                )
            continue
        if key not in properties:
            report(LOSSY, f"plugin {upstream_name} args.{key}", f"ruleset's {name} has no such arg")
            continue
        out[key] = value
    try:
        parsed, problems = check_plugin_args(cls, out)
        # The v1.20 defaults, and the release's own where they differ (``defaults_for``).
        release_defaults = getattr(cls, "defaults_for", None)
        newer = release_defaults(target) if release_defaults is not None and target is not None else {}
        if not problems and cls.args_to_dict(parsed) in (cls.args_with_defaults({}),
                                                         cls.args_with_defaults(newer)):
            return None
        for key, value in newer.items():  # an arg at the release's default says nothing
            if out.get(key) == value:
                del out[key]
    except Exception:  # args the plugin cannot read are reported by validation
        pass
    return out or None


def _unused_plugin_config(
    up: UpstreamProfile, source_of: dict[str, str], strategy: str | None, reported: set[str], report: Any
) -> None:
    used = set(source_of.values()) | set(source_of)
    for name in up.args:
        if name in used or name in HARMLESS or f"plugin {name}" in reported:
            continue
        report(NOTE, f"pluginConfig {name}", "args of a plugin this profile does not enable; not used")


# --------------------------------------------------------------------------- output
def summarize(issues: list[Issue], severities: tuple[str, ...]) -> list[str]:
    """One line per reason: items dropped for the same reason (the volume plugins) share it."""
    by_reason: dict[tuple[str, str], list[str]] = {}
    for issue in issues:
        if issue.severity in severities:
            by_reason.setdefault((issue.severity, issue.reason), []).append(issue.item)
    lines = []
    for (severity, reason), items in by_reason.items():
        if len(items) > 1 and all(i.startswith("plugin ") for i in items):
            what = "plugins " + ", ".join(i[len("plugin ") :] for i in items)
        else:
            what = "; ".join(items)
        label = "lost (--allow-lossy)" if severity == LOSSY else severity
        lines.append(f"{label}: {what}: {reason}")
    return lines


def render(imported: ImportedProfile) -> str:
    """The TOML text of an imported profile."""
    return dumps(imported.data, header=imported.header)


def check_imported(imported: ImportedProfile, registry: PluginRegistry | None = None) -> list[Problem]:
    """Load the rendered profile as ``ruleset`` would; returns its errors (none expected)."""
    with tempfile.TemporaryDirectory(prefix="ruleset-import-") as tmp:
        path = Path(tmp) / "profile.toml"
        path.write_text(render(imported), encoding="utf-8")
        _, problems = check_profile(path, registry)
    return [p for p in problems if p.severity == "error"]


def file_name(scheduler_name: str, taken: set[str]) -> str:
    """A file name for a profile: ``default-scheduler`` → ``default.toml``, others sanitised."""
    base = "default" if scheduler_name in ("", "default-scheduler") else scheduler_name
    base = "".join(c if c.isalnum() or c in "-_." else "-" for c in base).strip(".-") or "profile"
    name = f"{base}.toml"
    n = 2
    while name in taken:
        name = f"{base}-{n}.toml"
        n += 1
    taken.add(name)
    return name
