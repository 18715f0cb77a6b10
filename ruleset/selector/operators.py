"""Kubernetes' ``selection.Operator`` strings (``k8s.io/apimachinery/pkg/selection``)."""

IN = "in"
NOT_IN = "notin"
EQUALS = "="
DOUBLE_EQUALS = "=="
NOT_EQUALS = "!="
EXISTS = "exists"
DOES_NOT_EXIST = "!"
GREATER_THAN = "gt"
LESS_THAN = "lt"

#: Every operator, in the order Kubernetes lists them.
OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN, EXISTS, DOES_NOT_EXIST)
