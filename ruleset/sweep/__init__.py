"""``ruleset sweep``: a grid of profiles × snapshots × scenarios × Kubernetes releases, one task
per combination, run on an engine (a local process pool, Dask, or one a plugin package registers
through ``ruleset_sweep_engines``), each task's result written atomically into ``--out`` so that a
rerun runs only what is missing.

Modules, one job each: :mod:`~ruleset.sweep.grid` (the grid, from flags or a TOML sweep file),
:mod:`~ruleset.sweep.plan` (checks every input once and makes the tasks),
:mod:`~ruleset.sweep.task` (one task, run in a worker), :mod:`~ruleset.sweep.store` (the results
folder), :mod:`~ruleset.sweep.engines` (where tasks run), :mod:`~ruleset.sweep.table` (CSV and
Parquet), :mod:`~ruleset.sweep.summary` (the HTML page), :mod:`~ruleset.sweep.runner` (all of it
in order).
"""
