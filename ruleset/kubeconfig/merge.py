"""Merge a KubeSchedulerConfiguration's profiles with their version's defaults, as kube-scheduler does.

* 1.18-1.21 (v1alpha1, v1alpha2, v1beta1): ``mergePluginSets`` — the defaults minus the
  disabled ones (all of them for ``*``), then the custom enabled plugins appended in order.
* 1.22+ (v1beta2, v1beta3, v1): ``mergePluginSet`` — a custom-enabled plugin that is also a
  default replaces the default in place (keeping its position, taking the custom weight);
  the rest are appended; disabled lists of default and custom are joined.
* v1beta3/v1: then ``expandMultiPointPlugins`` per extension point — skipped where the
  point disables ``*``; a multiPoint plugin goes to each point its type implements unless
  disabled there; one also enabled at the point itself is an *override*. Order: overrides
  (in the point's order), then multiPoint-only plugins, then the point's other plugins.
  Score weight: the point's own weight wins over the multiPoint weight; 0 means 1.

The result is an :class:`UpstreamProfile`: what each extension point runs, in order.
"""

from __future__ import annotations

from typing import Any

from ruleset.kubeconfig.catalogue import extenders_reason, upstream_points
from ruleset.kubeconfig.model import INVALID, LOSSY, NOTE, Issue, UpstreamProfile
from ruleset.kubeconfig.versions import ALL_POINTS, APIVersion, cluster_autoscaler

Entry = tuple[str, "int | None"]

#: Top-level fields that configure the kube-scheduler process, not placements.
PROCESS_FIELDS = frozenset(
    {
        "apiVersion",
        "kind",
        "leaderElection",
        "clientConnection",
        "healthzBindAddress",
        "metricsBindAddress",
        "enableProfiling",
        "enableContentionProfiling",
        "parallelism",
        "podInitialBackoffSeconds",
        "podMaxBackoffSeconds",
        "bindTimeoutSeconds",
        "featureGates",
        "debuggingConfiguration",
        "delayCacheUntilActive",
    }
)


def read_profiles(doc: dict[str, Any], version: APIVersion, where: str) -> list[UpstreamProfile]:
    """Every profile of one KubeSchedulerConfiguration, merged with ``version``'s defaults."""
    global_issues: list[Issue] = []
    pct = _int_or_none(doc.get("percentageOfNodesToScore"), "percentageOfNodesToScore", where, global_issues)
    extenders = doc.get("extenders")
    if extenders:
        global_issues.append(Issue(LOSSY, "extenders", extenders_reason(len(extenders)), where))
    handled = PROCESS_FIELDS | {
        "percentageOfNodesToScore",
        "extenders",
        "profiles",
        "schedulerName",
        "plugins",
        "pluginConfig",
        "algorithmSource",
        "hardPodAffinitySymmetricWeight",
        "disablePreemption",
        "topologySpreadConstraints",
    }
    for key in doc:
        if key not in handled:
            # (a key YAML read as a boolean or a number, like `on:`, is shown as written)
            item = key if isinstance(key, str) else repr(key)
            global_issues.append(
                Issue(NOTE, item, "field not read (it does not affect placements in ruleset)", where)
            )
    defaults = version.defaults
    raw_profiles: object  # the profiles as read; a list once checked below
    if version.single_profile:
        raw_profiles = [
            {
                "schedulerName": doc.get("schedulerName"),
                "plugins": doc.get("plugins"),
                "pluginConfig": doc.get("pluginConfig"),
            }
        ]
        source = doc.get("algorithmSource") or {}
        if isinstance(source, dict) and source.get("policy"):
            global_issues.append(
                Issue(
                    LOSSY,
                    "algorithmSource.policy",
                    "the configuration takes its algorithm from "
                    "a Policy file or ConfigMap; import that Policy itself with `ruleset import`",
                    where,
                )
            )
        provider = source.get("provider") if isinstance(source, dict) else None
        if provider == "ClusterAutoscalerProvider":
            defaults = cluster_autoscaler(defaults)
        elif provider not in (None, "DefaultProvider"):
            global_issues.append(
                Issue(
                    INVALID,
                    "algorithmSource.provider",
                    f"unknown algorithm provider {provider!r} "
                    "(known: DefaultProvider, ClusterAutoscalerProvider)",
                    where,
                )
            )
    else:
        raw_profiles = doc.get("profiles")
        if raw_profiles is None or raw_profiles == []:
            raw_profiles = [{}]
        if not isinstance(raw_profiles, list):
            return [
                UpstreamProfile(
                    "",
                    version.api_version,
                    version.release,
                    where=where,
                    issues=[*global_issues, Issue(INVALID, "profiles", "must be a list", where)],
                )
            ]
    if doc.get("topologySpreadConstraints"):
        global_issues.append(
            Issue(
                LOSSY,
                "topologySpreadConstraints",
                "1.17's cluster-level spread constraints; set PodTopologySpread's defaultConstraints instead",
                where,
            )
        )
    out = []
    for i, raw in enumerate(raw_profiles):
        at = where if version.single_profile else f"{where}: profiles[{i}]"
        if not isinstance(raw, dict):
            out.append(
                UpstreamProfile(
                    "",
                    version.api_version,
                    version.release,
                    where=at,
                    issues=[Issue(INVALID, f"profiles[{i}]", "must be a mapping", where)],
                )
            )
            continue
        profile = _read_profile(raw, version, defaults, at)
        if profile.percentage_of_nodes_to_score is None:
            profile.percentage_of_nodes_to_score = pct
        profile.issues[:0] = global_issues if i == 0 else [g for g in global_issues if g.severity != NOTE]
        if version.name in ("v1alpha1", "v1alpha2"):
            _add_preemption(profile, doc)
        weight = doc.get("hardPodAffinitySymmetricWeight")
        if weight is not None and "InterPodAffinity" not in profile.args:
            profile.args["InterPodAffinity"] = {"hardPodAffinityWeight": weight}
        out.append(profile)
    if len(out) == 1 and not out[0].name:
        out[0].name = "default-scheduler"
    names = [p.name for p in out]
    for p in out:
        if not p.name:
            p.issues.append(
                Issue(INVALID, "schedulerName", "required when there is more than one profile", p.where)
            )
        elif names.count(p.name) > 1:
            p.issues.append(Issue(INVALID, "schedulerName", f"duplicate scheduler name {p.name!r}", p.where))
    return out


def _add_preemption(profile: UpstreamProfile, doc: dict[str, Any]) -> None:
    """Before 1.19 preemption was built in, not a plugin: it ran unless ``disablePreemption``."""
    if doc.get("disablePreemption") is True:
        return
    profile.in_tree = profile.in_tree | {"DefaultPreemption"}
    post = profile.points.setdefault("postFilter", [])
    if all(n != "DefaultPreemption" for n, _ in post):
        post.append(("DefaultPreemption", None))


def _int_or_none(value: Any, item: str, where: str, issues: list[Issue]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        issues.append(Issue(INVALID, item, f"expected an integer, got {value!r}", where))
        return None
    return value


def _read_profile(
    raw: dict[str, Any], version: APIVersion, defaults: dict[str, list[Entry]], where: str
) -> UpstreamProfile:
    name = raw.get("schedulerName")
    profile = UpstreamProfile(
        in_tree=version.registry,
        name=str(name) if name else "",
        api_version=version.api_version,
        release=version.release,
        where=where,
    )
    profile.percentage_of_nodes_to_score = _int_or_none(
        raw.get("percentageOfNodesToScore"), "percentageOfNodesToScore", where, profile.issues
    )
    plugins = raw.get("plugins") or {}
    if not isinstance(plugins, dict):
        profile.issues.append(Issue(INVALID, "plugins", "must be a mapping", where))
        plugins = {}
    custom: dict[str, tuple[list[Entry], list[str]]] = {}
    for point, value in plugins.items():
        if point not in version.points:
            profile.issues.append(
                Issue(
                    INVALID,
                    f"plugins.{point}",
                    f"not an extension point of {version.api_version} (known: {', '.join(version.points)})",
                    where,
                )
            )
            continue
        custom[point] = _plugin_set(value, f"plugins.{point}", where, profile.issues)
    if version.merge == "append":
        for point in version.points:
            enabled = _merge_append(defaults.get(point, []), custom.get(point))
            target = version.renamed_points.get(point, point)
            if target == "unreserve":
                continue
            _extend(profile, target, enabled)
        # 1.18's Unreserve is part of Reserve in ruleset (and in kube-scheduler from 1.19).
        unreserve = _merge_append(defaults.get("unreserve", []), custom.get("unreserve"))
        if "unreserve" in version.points:
            reserve = profile.points.setdefault("reserve", [])
            for entry in unreserve:
                if all(entry[0] != n for n, _ in reserve):
                    reserve.append(entry)
    else:
        merged = {
            point: _merge_replace(defaults.get(point, []), custom.get(point)) for point in version.points
        }
        multipoint = merged.pop("multiPoint", ([], []))
        for point in ALL_POINTS:
            if point not in merged:
                continue
            enabled, disabled = merged[point]
            if version.multipoint and multipoint[0]:
                enabled = _expand(
                    point, enabled, disabled, multipoint[0], version.release, where, profile.issues
                )
            _extend(profile, point, enabled)
    _check_duplicates(profile, where)
    _read_plugin_config(raw.get("pluginConfig"), profile, where)
    return profile


def _extend(profile: UpstreamProfile, point: str, enabled: list[Entry]) -> None:
    if enabled:
        profile.points.setdefault(point, []).extend(enabled)


def _plugin_set(value: Any, item: str, where: str, issues: list[Issue]) -> tuple[list[Entry], list[str]]:
    if value is None:
        return [], []
    if not isinstance(value, dict):
        issues.append(Issue(INVALID, item, "must be a mapping with 'enabled' and 'disabled' lists", where))
        return [], []
    enabled: list[Entry] = []
    disabled: list[str] = []
    for key in ("enabled", "disabled"):
        items = value.get(key) or []
        if not isinstance(items, list):
            issues.append(Issue(INVALID, f"{item}.{key}", "must be a list", where))
            continue
        for j, entry in enumerate(items):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
                issues.append(Issue(INVALID, f"{item}.{key}[{j}]", "needs a 'name'", where))
                continue
            if key == "disabled":
                disabled.append(entry["name"])
                continue
            weight = entry.get("weight")
            if weight is not None and (isinstance(weight, bool) or not isinstance(weight, int)):
                issues.append(
                    Issue(INVALID, f"{item}.{key}[{j}].weight", f"expected an integer, got {weight!r}", where)
                )
                weight = None
            enabled.append((entry["name"], weight))
    for key in value:
        if key not in ("enabled", "disabled"):
            issues.append(
                Issue(INVALID, f"{item}.{key}", "unknown field (expected 'enabled' and 'disabled')", where)
            )
    return enabled, disabled


def _merge_append(defaults: list[Entry], custom: tuple[list[Entry], list[str]] | None) -> list[Entry]:
    """``mergePluginSets`` (1.18-1.21)."""
    enabled, disabled = custom or ([], [])
    out = [] if "*" in disabled else [e for e in defaults if e[0] not in disabled]
    return out + list(enabled)


def _merge_replace(
    defaults: list[Entry], custom: tuple[list[Entry], list[str]] | None
) -> tuple[list[Entry], list[str]]:
    """``mergePluginSet`` (1.22+): replace in place, append the rest; returns (enabled, disabled)."""
    enabled, disabled = custom or ([], [])
    custom_index = {name: i for i, (name, _) in enumerate(enabled)}
    replaced: set[int] = set()
    out: list[Entry] = []
    if "*" not in disabled:
        for entry in defaults:
            if entry[0] in disabled:
                continue
            if entry[0] in custom_index:
                i = custom_index[entry[0]]
                entry = enabled[i]
                replaced.add(i)
            out.append(entry)
    out.extend(e for i, e in enumerate(enabled) if i not in replaced)
    return out, list(disabled)


def _expand(
    point: str,
    enabled: list[Entry],
    disabled: list[str],
    multipoint: list[Entry],
    release: str,
    where: str,
    issues: list[Issue],
) -> list[Entry]:
    """``expandMultiPointPlugins`` for one extension point."""
    if "*" in disabled:
        return enabled
    specific = {name: w for name, w in enabled}
    overrides: list[str] = []
    multi_only: list[Entry] = []
    for name, weight in multipoint:
        points = upstream_points(name, release)
        # Not an in-tree plugin (None): kube-scheduler asks the plugin which points it
        # implements; here it stays at every point, and the translation keeps the points
        # the installed ruleset plugin of that name implements (or reports the plugin).
        if points is not None and point not in points:
            continue
        if name in disabled:
            continue
        if name in specific:
            overrides.append(name)
            continue
        if any(name == n for n, _ in multi_only):
            issues.append(
                Issue(
                    INVALID,
                    f"plugins.multiPoint: {name}",
                    f"plugin {name!r} already registered as {point!r}",
                    where,
                )
            )
            continue
        multi_only.append((name, weight))
    # Overrides keep the point's own entry, so its Score weight wins over the multiPoint one.
    head = [(n, w) for n, w in enabled if n in overrides]
    tail = [(n, w) for n, w in enabled if n not in overrides]
    return head + multi_only + tail


def _check_duplicates(profile: UpstreamProfile, where: str) -> None:
    for point, items in profile.points.items():
        seen: set[str] = set()
        for name, _ in items:
            if name in seen:
                profile.issues.append(
                    Issue(
                        INVALID,
                        f"plugins.{point}: {name}",
                        f"plugin {name!r} is enabled "
                        f"twice at {point} (a default plugin re-enabled without disabling it "
                        f"first); kube-scheduler refuses this",
                        where,
                    )
                )
            seen.add(name)


def _read_plugin_config(value: Any, profile: UpstreamProfile, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        profile.issues.append(Issue(INVALID, "pluginConfig", "must be a list", where))
        return
    for j, entry in enumerate(value):
        item = f"pluginConfig[{j}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            profile.issues.append(Issue(INVALID, item, "needs a 'name'", where))
            continue
        name = entry["name"]
        if name in profile.args:
            profile.issues.append(Issue(INVALID, f"{item}: {name}", "duplicate pluginConfig entry", where))
            continue
        args = entry.get("args") or {}
        if not isinstance(args, dict):
            profile.issues.append(Issue(INVALID, f"{item}: {name}.args", "must be a mapping", where))
            continue
        args = dict(args)
        kind = args.pop("kind", None)
        args.pop("apiVersion", None)
        if kind is not None and kind != f"{name}Args":
            profile.issues.append(
                Issue(
                    INVALID,
                    f"{item}: {name}.args.kind",
                    f"args for plugin {name} must be of kind {name}Args, got {kind}",
                    where,
                )
            )
        profile.args[name] = args
