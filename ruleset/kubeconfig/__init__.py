"""The bridge to kube-scheduler: KubeSchedulerConfiguration (and legacy Policy) import and export.

One job per module:

* :mod:`~ruleset.kubeconfig.versions` — the API versions, each release's default plugin sets
  and in-tree registries;
* :mod:`~ruleset.kubeconfig.catalogue` — upstream plugins against ruleset's: extension
  points, args fields, what is dropped harmlessly and what must be reported;
* :mod:`~ruleset.kubeconfig.documents` — finding configurations in files (multi-document,
  ``List``, ConfigMap-wrapped, JSON);
* :mod:`~ruleset.kubeconfig.merge` — each version's merge with its defaults and ``multiPoint``
  expansion;
* :mod:`~ruleset.kubeconfig.legacy` — the legacy ``Policy`` through 1.20's legacy registry;
* :mod:`~ruleset.kubeconfig.ordering` — one profile order from per-point orders;
* :mod:`~ruleset.kubeconfig.importer` / :mod:`~ruleset.kubeconfig.exporter` — the two directions.
"""

from ruleset.kubeconfig.exporter import export_profiles
from ruleset.kubeconfig.importer import import_config

__all__ = ["export_profiles", "import_config"]
