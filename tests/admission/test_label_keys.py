"""``matchLabelKeys``/``mismatchLabelKeys`` merged into pod (anti-)affinity selectors on create
(upstream ``applyMatchLabelKeysAndMismatchLabelKeys``, pkg/registry/core/pod/strategy.go,
as of v1.31 where the MatchLabelKeysInPodAffinity gate is on by default). Left out: the
gate's alpha releases' ``kubectl`` warnings; the API server's validation of the keys."""

from __future__ import annotations

import copy

import pytest

from ruleset.admission.label_keys import merge_label_keys
from ruleset.admission.raw import Editor


def pod(term: dict, labels: dict | None = None, kind: str = "podAntiAffinity", preferred: bool = False) -> dict:
    section = ({"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": term}]}
               if preferred else {"requiredDuringSchedulingIgnoredDuringExecution": [term]})
    return {"metadata": {"name": "p", "labels": labels if labels is not None else {"app": "web", "rev": "2"}},
            "spec": {"affinity": {kind: section}}}


def merged(raw: dict) -> tuple[bool, dict]:
    editor = Editor()
    root = editor.root(raw)
    changed = merge_label_keys(editor, root)
    return changed, root


TERM = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "h"}


@pytest.mark.parametrize("term, labels, kind, preferred, expected", [
    pytest.param({**TERM, "matchLabelKeys": ["rev"]}, None, "podAntiAffinity", False,
                 [{"key": "rev", "operator": "In", "values": ["2"]}], id="match"),
    pytest.param({**TERM, "mismatchLabelKeys": ["rev"]}, None, "podAffinity", False,
                 [{"key": "rev", "operator": "NotIn", "values": ["2"]}], id="mismatch"),
    pytest.param({**TERM, "matchLabelKeys": ["rev", "missing"], "mismatchLabelKeys": ["app"]}, None,
                 "podAffinity", True,
                 [{"key": "rev", "operator": "In", "values": ["2"]},
                  {"key": "app", "operator": "NotIn", "values": ["web"]}], id="both-preferred-missing-key-skipped"),
])
def test_keys_become_requirements(term, labels, kind, preferred, expected):
    raw = pod(term, labels, kind, preferred)
    before = copy.deepcopy(raw)
    changed, out = merged(raw)
    section = out["spec"]["affinity"][kind]
    got = (section["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"] if preferred
           else section["requiredDuringSchedulingIgnoredDuringExecution"][0])
    assert (changed, got["labelSelector"]["matchExpressions"]) == (True, expected)
    assert raw == before  # the input is never changed


@pytest.mark.parametrize("term, labels", [
    pytest.param({"topologyKey": "h", "matchLabelKeys": ["rev"]}, None, id="no-selector-matches-nothing"),
    pytest.param({**TERM, "matchLabelKeys": ["absent"]}, None, id="pod-lacks-the-label"),
    pytest.param(TERM, None, id="no-keys"),
])
def test_nothing_to_merge(term, labels):
    changed, out = merged(pod(term, labels))
    assert changed is False
    assert "matchExpressions" not in (out["spec"]["affinity"]["podAntiAffinity"]
                                      ["requiredDuringSchedulingIgnoredDuringExecution"][0].get("labelSelector") or {})
