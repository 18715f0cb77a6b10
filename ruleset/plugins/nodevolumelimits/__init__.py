"""The volume-limit plugins (``pkg/scheduler/framework/plugins/nodevolumelimits``): CSI drivers'
limits (:class:`NodeVolumeLimits`) and the in-tree EBS, GCE PD, Azure Disk and Cinder limits
(:class:`EBSLimits`, :class:`GCEPDLimits`, :class:`AzureDiskLimits`, :class:`CinderLimits`)."""

from ruleset.plugins.nodevolumelimits.csi import NodeVolumeLimits
from ruleset.plugins.nodevolumelimits.non_csi import AzureDiskLimits, CinderLimits, EBSLimits, GCEPDLimits

__all__ = ["AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits"]
