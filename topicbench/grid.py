"""Experiments in the config, expanded into runs and validated before any job starts.

An experiment (workflow/config/*.yaml, ``experiments:``) names its datasets, seeds, shared run
settings and a list of run groups. Each group has a ``label``, a ``method``, a ``grid`` (lists of
hyperparameter values; the product is taken) and optional ``settings`` overriding the shared ones.
Every grid point is checked against its method's ``check_params`` here, at DAG-building time,
so an impossible grid fails in seconds, not after hours of compute.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import fields
from typing import Any

from .method import get_method
from .run import RunSpec

SETTING_NAMES = {f.name for f in fields(RunSpec)} - {"method", "params", "seed", "experiment", "dataset", "threads", "label"}


class GridError(ValueError):
    """An experiment in the config cannot be expanded into valid runs."""


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:g}"
    return str(value)


def run_id(experiment: str, dataset: str, method: str, label: str, params: dict, seed: int) -> str:
    """``<experiment>/<dataset>/<method>/label~<l>/<param~value/...>/seed~<s>`` (DESIGN.md, "Runner outputs")."""
    parts = [experiment, dataset, method, f"label~{label}"]
    parts += [f"{key}~{format_value(params[key])}" for key in sorted(params)]
    parts.append(f"seed~{seed}")
    return "/".join(parts)


def expand_experiment(name: str, experiment: dict, datasets: dict) -> dict[str, dict]:
    """{run_id: {"dataset", "spec": RunSpec fields}} for one experiment."""
    runs: dict[str, dict] = {}
    exp_datasets = experiment.get("datasets") or ([experiment["dataset"]] if "dataset" in experiment else [])
    if not exp_datasets:
        raise GridError(f"experiment {name}: names no dataset")
    for dataset in exp_datasets:
        if dataset not in datasets:
            raise GridError(f"experiment {name}: dataset {dataset!r} is not defined under datasets: (known: {sorted(datasets)})")
    seeds = experiment.get("seeds", [0])
    shared = dict(experiment.get("settings", {}))
    labels = set()
    for group in experiment.get("runs", []):
        label = group.get("label", group["method"])
        if label in labels:
            raise GridError(f"experiment {name}: run label {label!r} appears twice")
        labels.add(label)
        try:
            method_cls = get_method(group["method"])
        except KeyError as err:
            raise GridError(f"experiment {name}, run {label}: {err}") from None
        settings = {**shared, **group.get("settings", {})}
        unknown = sorted(set(settings) - SETTING_NAMES)
        if unknown:
            raise GridError(f"experiment {name}, run {label}: unknown run setting(s) {unknown}; known: {sorted(SETTING_NAMES)}")
        grid = group.get("grid", {})
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise GridError(f"experiment {name}, run {label}: grid axis {key!r} must be a non-empty list, got {values!r}")
        keys = sorted(grid)
        for combo in itertools.product(*(grid[k] for k in keys)):
            params = dict(zip(keys, combo))
            for dataset in exp_datasets:
                for seed in seeds:
                    spec = RunSpec(method=group["method"], params=params, seed=int(seed), experiment=name,
                                   dataset=dataset, label=label, **settings)
                    try:
                        spec.check()
                    except (ValueError, KeyError) as err:
                        raise GridError(f"experiment {name}, run {label}, grid point {params}: {err}") from None
                    rid = run_id(name, dataset, method_cls.name, label, params, int(seed))
                    runs[rid] = {"dataset": dataset, "label": label, "spec": spec}
    if not runs:
        raise GridError(f"experiment {name}: expands to no runs")
    return runs


def expand_all(config: dict) -> dict[str, dict]:
    runs: dict[str, dict] = {}
    for name, experiment in (config.get("experiments") or {}).items():
        runs.update(expand_experiment(name, experiment, config.get("datasets", {})))
    return runs
