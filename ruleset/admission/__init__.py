"""What the API server and its default admission plugins add to a pod on create (v1.20).

Raw pod dicts (parsed YAML/JSON, or built by workload controllers) go through
:class:`Admission` before ``decode_pod``, in the API server's order: defaulting, mutating
admission, name generation, validating admission (``decode_pod`` then does the object
validation). The input is never changed: the result is a new dict, and YAML line maps are
kept on every level copied. Malformed parts are left alone for ``decode_pod`` to report.

Each change, and the upstream component it mirrors (kubernetes v1.20):

* requests defaulted from limits: each resource in a container's (or init container's)
  ``limits`` missing from its ``requests`` is requested at its limit -- ``SetDefaults_Pod``
  (``pkg/apis/core/v1/defaults.go``);
* ``spec.schedulerName`` defaults to ``default-scheduler`` -- ``SetDefaults_PodSpec``;
* with ``hostNetwork: true``, a port's ``hostPort`` defaults to its ``containerPort`` --
  ``SetDefaults_PodSpec`` (``defaultHostNetworkPorts``);
* ``metadata.namespace`` defaults to ``default`` -- the request's namespace (kubectl
  without ``-n``), ``rest.BeforeCreate``;
* ``metadata.generateName`` without a name: the name is it (cut to 58 bytes) plus 5
  characters of ``bcdfghjklmnpqrstvwxz2456789``, drawn from the run's seed, never a name
  taken in the namespace -- ``names.SimpleNameGenerator``
  (``staging/src/k8s.io/apiserver/pkg/storage/names/generate.go``), from ``rest.BeforeCreate``;
* tolerations of ``node.kubernetes.io/not-ready`` and ``unreachable`` (``NoExecute``,
  300 s) unless already tolerated -- the DefaultTolerationSeconds admission plugin;
* a LimitRange's ``Container`` ``default`` and ``defaultRequest`` fill what a container
  lacks (noted in the ``kubernetes.io/limit-ranger`` annotation); ``min``, ``max`` and
  ``maxLimitRequestRatio`` of ``Container`` and ``Pod`` items refuse a pod -- the
  LimitRanger admission plugin (LimitRanges defaulted by ``SetDefaults_LimitRangeItem``);
* ``spec.runtimeClassName``: the class's ``overhead.podFixed`` becomes ``spec.overhead``,
  its ``scheduling.nodeSelector`` and ``tolerations`` are merged into the pod's; an unknown
  class, a conflicting selector or a different overhead refuse the pod -- the RuntimeClass
  admission plugin (with ``pkg/util/tolerations.MergeTolerations``).

The mutating plugins run in the API server's order (LimitRanger, DefaultTolerationSeconds,
RuntimeClass), then the name is generated, then the validating ones (LimitRanger,
RuntimeClass). Only the plugins run on create (``Admission.admit(raw, created=False)``); a pod that already
exists (read from a dump) gets the defaulting only, as the API server defaults objects it
reads back. When the snapshot holds no RuntimeClass at all, the RuntimeClass plugin does not
run (a named class is counted as not in the snapshot): the snapshot says nothing of classes.
"""

from ruleset.admission.admitter import Admission, Admitted
from ruleset.admission.objects import (
    LimitRange,
    LimitRangeItem,
    RuntimeClass,
    Scheduling,
    decode_limit_range,
    decode_runtime_class,
)
from ruleset.admission.raw import located_copy

__all__ = [
    "Admission", "Admitted", "LimitRange", "LimitRangeItem", "RuntimeClass", "Scheduling",
    "decode_limit_range", "decode_runtime_class", "located_copy",
]
