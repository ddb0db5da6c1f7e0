"""Scalex in Python: the analyses of `scalex fit ...` on a study read from files or a DataFrame.

    import scalex
    study = scalex.read("runs.csv")          # or a .scalex project, a list of files, a DataFrame
    law = study.isoflop(budget_range=(5e18, 2e20))
    law.json()                                # the object `scalex fit isoflop --json` prints
    law.tables()["profiles"]                  # its tables as pandas DataFrames

Each method is named after its verb and takes the verb's options (dashes as underscores) with the
verb's defaults. Errors raise scalex.Error with the verb's message.
"""

import json as _json

from . import _scalex
from ._scalex import Error

__all__ = ["Error", "Result", "Study", "read", "example"]


class Result:
    """One analysis' result: .json() is the verb's --json object, .tables() its tables."""

    def __init__(self, verb, text):
        self.verb = verb
        self._text = text
        self._json = _json.loads(text)

    def json(self):
        return _json.loads(self._text)

    def tables(self):
        """Every list of records in the result as a DataFrame, keyed by its path in the JSON
        ("profiles", "comparison.samples", ...); records of several series are stacked with a
        `series` and a `context` column."""
        import pandas as pd

        found = {}

        def walk(value, path, tags):
            if isinstance(value, dict):
                for key, child in value.items():
                    if path == "" and key == "series" and isinstance(child, list):
                        for item in child:
                            if isinstance(item, dict):
                                extra = {"series": item.get("name"), "context": item.get("context")}
                                walk({k: v for k, v in item.items() if k not in extra and k != "name"}, "", {**tags, **extra})
                        continue
                    walk(child, f"{path}.{key}" if path else key, tags)
            elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                rows = []
                for v in value:
                    row = dict(tags)
                    row.update({k: c for k, c in v.items() if not isinstance(c, (dict, list))})
                    rows.append(row)
                found.setdefault(path, []).extend(rows)

        walk(self._json, "", {})
        return {path: pd.DataFrame(rows) for path, rows in found.items()}

    def __repr__(self):
        return f"<scalex {self.verb} result: {', '.join(self._json.keys())}>"

    def _repr_json_(self):
        return self._json


def _scope(options):
    s = _scalex.Options()
    for key in ("where", "keep_budget"):
        value = options.pop(key, None)
        if value is not None:
            setattr(s, key, [value] if isinstance(value, (str, int, float)) else list(value))
    for key in ("ctx", "experiment_set", "family", "all_runs", "keep_outliers", "all_sweep_runs", "threads"):
        value = options.pop(key, None)
        if value is not None:
            setattr(s, key, value)
    value = options.pop("budget_range", None)
    if value is not None:
        lo, hi = value
        if not (lo >= 0 and hi > lo):
            raise Error(f"--budget-range expects two numbers LO < HI, got '{lo} {hi}'")
        s.budget_range = (float(lo), float(hi))
    return s


def _no_unknown(verb, options):
    if options:
        raise TypeError(f"{verb}() got unknown options: {', '.join(sorted(options))}")


class Study:
    """Runs read into one study, as `scalex fit --data ...` reads them."""

    def __init__(self, study):
        self._study = study

    @property
    def n_runs(self):
        return self._study.n_runs

    @property
    def series(self):
        return list(self._study.series_names)

    def runs(self):
        """The study's runs as a DataFrame: the columns `scalex convert` writes."""
        import io

        import pandas as pd

        return pd.read_csv(io.BytesIO(self._study.runs_csv()), float_precision="round_trip")

    def reading(self):
        """How the study's columns are read (`scalex check`'s role table): a DataFrame of column, role,
        evidence, what else was weighed and whether the user chose it; its `attrs` hold the conditions
        (the series' columns), the knobs, the budgets' source and levels, and the notes."""
        import pandas as pd

        r = self._study.reading()
        frame = pd.DataFrame(r["roles"], columns=["column", "role", "evidence", "weighed", "chosen"])
        for key in ("conditions", "knobs", "budget_source", "budget_levels", "sweeps", "notes"):
            frame.attrs[key] = r[key]
        return frame

    def isoflop(self, budgets=None, tolerance=0.1, at_budget=1e20, **options):
        """`scalex fit isoflop`: IsoFLOP parabolas per budget and the laws N*(H), D*(H)."""
        s = _scope(options)
        _no_unknown("isoflop", options)
        b = None if budgets is None else [float(x) for x in budgets]
        return Result("isoflop", self._study.isoflop(s, b, float(tolerance), float(at_budget)))

    def lnd(self, huber_delta=None, gamma=None, exhaustive=False, no_extrapolation=False, **options):
        """`scalex fit lnd`: the loss surface L(N,D) from the paper's grid of starts."""
        s = _scope(options)
        _no_unknown("lnd", options)
        h = None if huber_delta is None else float(huber_delta)
        return Result("lnd", self._study.lnd(s, h, gamma, bool(exhaustive), bool(no_extrapolation)))

    def slopes(self, ratios=None, ratio_tolerance=0.18, min_runs=3, **options):
        """`scalex fit slopes`: over-training exponents per tokens/param ratio."""
        s = _scope(options)
        _no_unknown("slopes", options)
        r = None if ratios is None else [float(x) for x in ratios]
        return Result("slopes", self._study.slopes(s, r, float(ratio_tolerance), int(min_runs)))

    def pareto(self, samples=50, resamples=1000, **options):
        """`scalex fit pareto`: loss-over-compute frontiers and their comparison."""
        s = _scope(options)
        _no_unknown("pareto", options)
        return Result("pareto", self._study.pareto(s, int(samples), int(resamples)))

    def context(self, context=8192, budget=1e22, **options):
        """`scalex fit context`: compute-optimal N*, D* across context lengths."""
        s = _scope(options)
        _no_unknown("context", options)
        return Result("context", self._study.context(s, float(context), float(budget)))

    def law(self, formula=None, params=None, law=None, **options):
        """`scalex fit law`: any law typed as a formula, fitted and scored on held-out runs.
        `params` maps each parameter to its bounds ("LO:HI" or "LO:HI@START", or a (LO, HI) pair)
        or is a list of "NAME=LO:HI"; the other options are the verb's (train, test, holdout,
        leave_one_out, group, shared, at, optimal_at, budget_for_loss, interval, level, resamples,
        seed, starts, no_projection, loss, space, huber_delta)."""
        o = _scalex.LawOptions()
        o.formula = formula or ""
        o.law = law or ""
        if isinstance(params, dict):
            o.param = [f"{k}={v[0]}:{v[1]}" if isinstance(v, (tuple, list)) else f"{k}={v}" for k, v in params.items()]
        elif params is not None:
            o.param = [params] if isinstance(params, str) else list(params)
        for key in ("shared", "at", "train", "test"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, [value] if isinstance(value, str) else list(value))
        for key in ("optimal_at", "budget_for_loss"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, [float(value)] if isinstance(value, (int, float)) else [float(x) for x in value])
        for key in ("loss", "space", "huber_delta", "starts", "resamples", "no_projection", "group", "leave_one_out",
                    "holdout", "interval", "level", "seed"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, value)
        s = _scope(options)
        _no_unknown("law", options)
        return Result("law", self._study.law(s, o))

    def optimal(self, budget=None, params=None, loss=None, **options):
        """`scalex predict optimal`: the compute-optimal N*, D* for a budget, a model size or a
        target loss, by the fitted surface and the IsoFLOP laws (method="both"), with the verb's
        options (context, method, reference, inference_tokens, huber_delta, ladder,
        ladder_surface, resamples)."""
        o = _scalex.OptimalOptions()
        for key, value in (("budget", budget), ("params", params), ("loss", loss)):
            if value is not None:
                setattr(o, key, float(value))
        ladder = options.pop("ladder", None)
        if ladder is not None:
            o.ladder = [ladder] if isinstance(ladder, str) else list(ladder)
        for key in ("context", "method", "reference", "inference_tokens", "huber_delta", "ladder_surface", "resamples"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, value)
        s = _scope(options)
        _no_unknown("optimal", options)
        return Result("optimal", self._study.optimal(s, o))


def read(source, series=None, name="dataframe.csv"):
    """A study from a path (run table or .scalex project), a list of paths, or a pandas DataFrame
    (read as the same table written to CSV, under the file name `name`, which names its series
    where no column does). `series` regroups the runs by these columns."""
    if hasattr(source, "to_csv"):
        study = _scalex.read_bytes(source.to_csv(index=False).encode(), name)
    else:
        paths = [source] if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__") else list(source)
        import os

        study = _scalex.read_files([os.fspath(p) for p in paths])
    if series:
        study.regroup([series] if isinstance(series, str) else list(series))
    return Study(study)


def example():
    """The built-in example project (`scalex fit ... --example`): generated runs, not measured."""
    return Study(_scalex.read_example())
