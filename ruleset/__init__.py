"""ruleset: declarative TOML scheduling profiles assembled into a Kubernetes-exact scheduler."""
