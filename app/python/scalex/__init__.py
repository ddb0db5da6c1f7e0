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

__all__ = ["Error", "Figure", "Result", "Study", "account", "convert", "curves", "design", "example", "generate", "predict_curve", "read"]


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
        ("profiles", "comparison.samples", "groups.picks", ...); records of several series are
        stacked with a `series` and a `context` column, records inside named records (a plan's
        groups) with a column of that name (`group`)."""
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
                    # Records inside a record (a plan group's picks) stack too, tagged with its name.
                    inner = {**tags, path.rsplit(".", 1)[-1].rstrip("s"): v["name"]} if "name" in v else tags
                    for k, c in v.items():
                        if isinstance(c, (dict, list)):
                            walk(c, f"{path}.{k}", inner)
                found.setdefault(path, []).extend(rows)

        walk(self._json, "", {})
        return {path: pd.DataFrame(rows) for path, rows in found.items()}

    def __repr__(self):
        return f"<scalex {self.verb} result: {', '.join(self._json.keys())}>"

    def _repr_json_(self):
        return self._json


class Figure:
    """A view of a study drawn as `scalex render --view VIEW` draws it: .save(path) writes a PDF,
    SVG or PNG; .png() and .svg() give its bytes and text; in Jupyter it shows itself inline (PNG,
    or SVG when made with format="svg")."""

    def __init__(self, study, scope, view, size, style, font, dpi, set, format, models=(), table=None):
        self._study, self._scope = study, scope
        self._models, self.table = list(models), table
        self.view, self.size, self.style, self.font, self.dpi, self.format = view, size, style, font, dpi, format
        self._set = set
        self._drawn = {}
        # A view, size, style, dpi or control the verb would refuse is refused now, not when first shown.
        _scalex.check_figure(self._options(""))

    def _options(self, out):
        o = _scalex.FigureOptions()
        o.view, o.out, o.set = self.view, out, self._set
        o.size, o.style, o.font, o.dpi = self.size, self.style, self.font, int(self.dpi)
        o.models, o.table = self._models, self.table or ""
        return o

    def save(self, path):
        """Writes the figure to `path` (.pdf, .svg or .png), or the view's table (`table`, default its
        first) to a .tex, .csv or .json `path`, and returns the path."""
        import os

        self._study.figure(self._scope, self._options(os.fspath(path)))
        return path

    def _bytes(self, suffix):
        if suffix not in self._drawn:
            import os
            import tempfile

            with tempfile.TemporaryDirectory(prefix="scalex-figure-") as d:
                path = os.path.join(d, f"{self.view}.{suffix}")
                self.save(path)
                with open(path, "rb") as f:
                    self._drawn[suffix] = f.read()
        return self._drawn[suffix]

    def png(self):
        return self._bytes("png")

    def svg(self):
        return self._bytes("svg").decode()

    def _repr_png_(self):
        return self.png() if self.format == "png" else None

    def _repr_svg_(self):
        return self.svg() if self.format == "svg" else None

    def __repr__(self):
        return f"<scalex figure: view {self.view}, size {self.size}, {self.style} style>"


def _scope(options):
    s = _scalex.Options()
    for key in ("where", "keep_budget"):
        value = options.pop(key, None)
        if value is not None:
            setattr(s, key, [value] if isinstance(value, (str, int, float)) else list(value))
    _set(s, options, ("ctx", "experiment_set", "family", "all_runs", "keep_outliers", "all_sweep_runs", "threads"))
    value = options.pop("budget_range", None)
    if value is not None:
        lo, hi = value
        if not (lo >= 0 and hi > lo):
            raise Error(f"--budget-range expects two numbers LO < HI, got '{lo} {hi}'")
        s.budget_range = (float(lo), float(hi))
    return s


def _set(target, options, keys):
    """Each of `keys` given in `options` (popped) set on the option object `target`."""
    for key in keys:
        value = options.pop(key, None)
        if value is not None:
            setattr(target, key, value)


def _listed(value):
    """One option value or several: a list of them."""
    return [value] if isinstance(value, (str, int, float, dict, tuple)) else list(value)


def _law_options(formula, params, law, options):
    """The law of `scalex fit law` and `scalex plan`: --formula with --param bounds, or --law, and
    how it is fitted (loss, space, huber_delta, starts, no_projection), popped from `options`."""
    o = _scalex.LawOptions()
    o.formula = formula or ""
    o.law = law or ""
    if isinstance(params, dict):
        o.param = [f"{k}={v[0]}:{v[1]}" if isinstance(v, (tuple, list)) else f"{k}={v}" for k, v in params.items()]
    elif params is not None:
        o.param = [params] if isinstance(params, str) else list(params)
    _set(o, options, ("loss", "space", "huber_delta", "starts", "no_projection"))
    return o


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

    def lnd(self, huber_delta=None, gamma=None, exhaustive=False, no_extrapolation=False, from_curves=None, checkpoints=None, **options):
        """`scalex fit lnd`: the loss surface L(N,D) from the paper's grid of starts. With `from_curves`
        and `checkpoints` (as lnd_from_curves()) the runs of the study's one series are the measured
        runs beside the predicted checkpoints, the other options the verb's."""
        if from_curves is not None or checkpoints is not None:
            s = _scope(options)
            for key, value in (("huber_delta", huber_delta), ("gamma", gamma), ("exhaustive", exhaustive),
                               ("no_extrapolation", no_extrapolation)):
                if value is not None and value is not False:
                    options[key] = value
            args = _verb_args("lnd", _from_curves_options(from_curves, checkpoints, options))
            return Result("lnd_from_curves", self._study.lnd_from_curves(s, args))
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
        o = _law_options(formula, params, law, options)
        for key in ("shared", "at", "train", "test"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, [value] if isinstance(value, str) else list(value))
        for key in ("optimal_at", "budget_for_loss"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, [float(value)] if isinstance(value, (int, float)) else [float(x) for x in value])
        _set(o, options, ("resamples", "group", "leave_one_out", "holdout", "interval", "level", "seed"))
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
        _set(o, options, ("context", "method", "reference", "inference_tokens", "huber_delta", "ladder_surface", "resamples"))
        s = _scope(options)
        _no_unknown("optimal", options)
        return Result("optimal", self._study.optimal(s, o))

    def figure(self, view, path=None, size="double", style="paper", font="DejaVu Sans", dpi=300, set=None, format="png", model=None,
               table=None, **options):
        """`scalex render --view VIEW`: the view drawn as a figure for a paper (views: runs, pareto,
        curves, schedules, surface, overtraining, isoflop, context, optimal, breakdown, roofline,
        inference, laws; `size` "3.25x2.4in", "16x9cm", single, double or slides; `set` the view's
        controls {NAME: VALUE} as --set NAME=VALUE; `model` model files, Scalex spec JSON or a
        config.json, added as --model adds them; `table` which of the view's tables a .tex, .csv or
        .json path gets). With `path` it is written at once; the figure shows itself inline in Jupyter."""
        s = _scope(options)
        _no_unknown("figure", options)
        if format not in ("png", "svg"):
            raise Error(f"format: expected png or svg, got '{format}'")
        assignments = [] if set is None else [f"{k}={v}" for k, v in set.items()] if isinstance(set, dict) else _listed(set)
        import os

        models = [] if model is None else [os.fspath(m) for m in ([model] if isinstance(model, str) or hasattr(model, "__fspath__") else model)]
        fig = Figure(self._study, s, view, size, style, font, dpi, assignments, format, models, table)
        if path is not None:
            fig.save(path)
        return fig

    def bootstrap(self, of=None, resamples=1000, seed=20250601, level=0.95, at=None, at_budget=None, **options):
        """`scalex fit bootstrap`: percentile intervals of a fit's parameters and predictions, over
        resampled runs of one series. `of` is lnd (with huber_delta, gamma, exhaustive and `at`
        points (N, D)), isoflop (with `at_budget` budgets, budget_range) or slopes (with ratios,
        ratio_tolerance, min_runs)."""
        o = _scalex.BootstrapOptions()
        o.of = of or ""
        o.resamples, o.seed, o.level = int(resamples), int(seed), float(level)
        if at is not None:
            points = [at] if isinstance(at, str) or (isinstance(at, tuple) and not isinstance(at[0], (tuple, list))) else list(at)
            o.at = [p if isinstance(p, str) else f"{float(p[0])!r},{float(p[1])!r}" for p in points]
        if at_budget is not None:
            o.at_budget = [float(h) for h in _listed(at_budget)]
        ratios = options.pop("ratios", None)
        if ratios is not None:
            o.ratios = [float(r) for r in _listed(ratios)]
        _set(o, options, ("huber_delta", "gamma", "exhaustive", "ratio_tolerance", "min_runs"))
        s = _scope(options)
        _no_unknown("bootstrap", options)
        return Result("bootstrap", self._study.bootstrap(s, o))

    def plan(self, formula=None, params=None, law=None, target=None, replay=False, starts=32, **options):
        """`scalex plan`: the next runs for a law (stated as for law()). By default the candidates
        (`candidates`, a CSV of planned runs, or `grid_n` and `grid_d`, each "LO:HI:K" or (LO, HI, K))
        are ranked by the drop of the target's predictive variance per unit cost and a batch picked
        (pick, budget, cost, simulate, misfit, misfit_length, group, seed, out); `target` is a point
        ("N=7e9,D=2e12" or {"N": 7e9, "D": 2e12}, several in a list) or a condition on the planned
        runs. With replay=True the finished study is replayed run by run (pool, target, budget,
        strategy, cost, group, seed)."""
        o = _scalex.PlanOptions()
        o.replay = bool(replay)
        if target is not None:
            o.target = [",".join(f"{k}={float(v)!r}" for k, v in t.items()) if isinstance(t, dict) else t for t in _listed(target)]
        pool = options.pop("pool", None)
        if pool is not None:
            o.pool = _listed(pool)
        for key in ("grid_n", "grid_d"):
            value = options.pop(key, None)
            if value is not None:
                setattr(o, key, value if isinstance(value, str) else ":".join(repr(x) for x in value))
        for key in ("candidates", "out"):
            value = options.pop(key, None)
            if value is not None:
                import os

                setattr(o, key, os.fspath(value))
        _set(o, options, ("cost", "group", "strategy", "budget", "misfit", "misfit_length", "pick", "simulate", "seed"))
        lo = _law_options(formula, params, law, options)
        lo.starts = int(starts)  # the verb's --starts default for plans (addLawOptions(p, 32) in app/cli/PlanVerb.cpp)
        s = _scope(options)
        _no_unknown("plan", options)
        return Result("plan", self._study.plan(s, lo, o))


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


def design(study_budget=None, target_budget=None, law=None, params=None, **options):
    """`scalex plan --design`: an IsoFLOP study from nothing, for `study_budget` FLOPs, centred on a
    prior's N*(C) (a shipped `law` with `params` {NAME: VALUE}, else the paper's L(N,D) of `family`,
    xlstm by default), with the interval the design would give on the exponent of N* ~ C^a and on
    N*(target_budget); the verb's options (ladder, budgets, sizes_per_budget, width, budget_span,
    sigma, seeds, seed, out)."""
    o = _scalex.DesignOptions()
    o.study_budget = None if study_budget is None else float(study_budget)
    o.target_budget = None if target_budget is None else float(target_budget)
    o.law = law
    if isinstance(params, dict):
        o.param = [f"{k}={v!r}" for k, v in params.items()]
    elif params is not None:
        o.param = _listed(params)
    ladder = options.pop("ladder", None)
    if ladder is not None:
        o.ladder = [float(n) for n in (ladder.split(",") if isinstance(ladder, str) else _listed(ladder))]
    out = options.pop("out", None)
    if out is not None:
        import os

        o.out = os.fspath(out)
    _set(o, options, ("family", "budgets", "sizes_per_budget", "width", "budget_span", "sigma", "seeds", "seed"))
    _no_unknown("design", options)
    return Result("design", _scalex.design(o))


def account(config=None, **options):
    """`scalex account`: parameters, FLOPs, memory traffic and cache of one model: a Hugging Face
    `config` (config.json) or a `spec` file, or the paper's study architecture from `family`,
    d_model, n_layers, n_heads (n_kv_heads, d_qk, d_hv, d_ff, vocab, chunk, cache); with ctx,
    convention, batch, prefill, generate and the FLOP factors and byte widths (f_causal, ...,
    bytes_qkv, ...) as the verb's options."""
    import os

    o = _scalex.AccountOptions()
    if config is not None:
        o.config = os.fspath(config)
    spec = options.pop("spec", None)
    if spec is not None:
        o.spec = os.fspath(spec)
    o.factors = {k.replace("_", "-"): float(options.pop(k)) for k in list(options) if k.startswith(("f_", "bytes_"))}
    _set(o, options, ("family", "cache", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_qk", "d_hv", "d_ff", "vocab", "chunk",
                      "prefill", "ctx", "batch", "generate", "convention"))
    _no_unknown("account", options)
    return Result("account", _scalex.account(o))


def _curve_options(data, options):
    import os

    o = _scalex.CurveOptions()
    o.data = [os.fspath(p) for p in ([data] if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__") else list(data or []))]
    holdout = options.pop("holdout", None)
    if holdout is not None:
        o.holdout = [os.fspath(p) for p in ([holdout] if isinstance(holdout, str) or hasattr(holdout, "__fspath__") else list(holdout))]
    _set(o, options, ("law", "warmup", "schedule", "train_loss", "huber_delta", "level", "max_iterations"))
    return o


def curves(data, **options):
    """`scalex fit curves`: a schedule-aware law of loss curves (law="mpl", "lra" or "power")
    fitted to tracker JSON exports (`data`: files or folders), scored on the `holdout` curves; the
    verb's options (warmup, schedule, train_loss, huber_delta, level, max_iterations)."""
    o = _curve_options(data, options)
    _no_unknown("curves", options)
    return Result("curves", _scalex.curves(o))


def predict_curve(data, schedule=None, at=None, **options):
    """`scalex predict curve`: the loss of a run under `schedule` (e.g.
    "wsd:peak=1e-3,steps=150000,warmup=300,cooldown=0.2,decay=sqrt") at the steps `at` (default:
    its last), from the law fitted to the `data` curves, each with its interval."""
    o = _curve_options(data, options)
    o.schedule = schedule or ""
    if at is not None:
        o.at = [int(s) for s in _listed(at)]
    _no_unknown("predict_curve", options)
    return Result("predict_curve", _scalex.predict_curve(o))


def convert(inputs, out, **options):
    """`scalex convert IN... OUT`: run tables and projects between .csv, .tsv, .json, .jsonl (optionally
    .gz), .tex and .scalex by their extensions; several inputs (run tables, loss curves, inference
    measurements) make one project. `table` picks a project input's run table. Returns `out`."""
    import os

    paths = [inputs] if isinstance(inputs, (str, bytes)) or hasattr(inputs, "__fspath__") else list(inputs)
    _scalex.convert(_verb_args("convert", options) + ["--"] + [os.fspath(p) for p in paths] + [os.fspath(out)])
    return out


def generate(out, **options):
    """`scalex generate --out out`: writes the generated example study (seed, sigma, noise_free,
    tables as the verb's, with its defaults) to `out`: a .scalex project, else a directory of CSV
    run tables and generator.json. Returns `out` (scalex.read(scalex.generate("x.scalex")) reads it)."""
    _scalex.generate(_verb_args("generate", {"out": out, **options}))
    return out


def example():
    """The built-in example project (`scalex fit ... --example`): generated runs, not measured."""
    return Study(_scalex.read_example())


def _verb_args(verb, options):
    """The keyword options as the verb's command line: dashes for underscores, True as a flag
    (False and None left out), a list or tuple as the option repeated, paths as given."""
    import os

    args = []
    for key, value in options.items():
        if key in ("json", "help"):
            raise TypeError(f"{verb}() takes no {key!r} option (the result is the --json object)")
        if value is None or value is False:
            continue
        name = "--" + key.replace("_", "-")
        if value is True:
            args.append(name)
            continue
        for v in ([value] if isinstance(value, (str, bytes, int, float)) or hasattr(value, "__fspath__") else list(value)):
            args += [name, os.fspath(v) if hasattr(v, "__fspath__") else (repr(v) if isinstance(v, float) else str(v))]
    return args


def _run_verb(name, options):
    """`scalex <verb> <options> --json`, asked of core/analysis as the program asks it (the options
    parsed as its command line: the same names, defaults and messages)."""
    return Result(name, getattr(_scalex, name)(_verb_args(name, options)))


def fit_runtime(data, **options):
    """`scalex fit runtime --data data`: alpha_eff, beta_eff, eps (and the batch term) of each measured
    model and stage; the verb's options (arch, configs, model, stage, accelerator, accelerator_name,
    batch_term, loss, variable_share, points, convention, f_causal, generate) with its defaults."""
    return _run_verb("fit_runtime", {"data": data, **options})


def predict_runtime(**options):
    """`scalex predict runtime`: TTFT, step time, throughput and memory of one configuration (family,
    d_model, n_layers, n_heads, ... or spec), at batch/prefill on an accelerator or fitted rates (fit)."""
    return _run_verb("predict_runtime", options)


def predict_max_model(**options):
    """`scalex predict max-model`: the largest configuration of a family (or ladder) within a TTFT
    (ttft_ms) or step-time (step_ms) budget."""
    return _run_verb("predict_max_model", options)


def predict_crossover(**options):
    """`scalex predict crossover`: the context length at which xLSTM's advantage reaches `factor`."""
    return _run_verb("predict_crossover", options)


def _from_curves_options(from_curves, checkpoints, options):
    """--from-curves (one value per model, its files comma-separated) and --checkpoints beside `options`."""
    import os

    models = []
    for m in ([] if from_curves is None else [from_curves] if isinstance(from_curves, (str, bytes)) or hasattr(from_curves, "__fspath__")
              else list(from_curves)):
        if isinstance(m, (list, tuple)):
            models.append(",".join(os.fspath(f) for f in m))
        else:
            models.append(os.fspath(m))
    tokens = [] if checkpoints is None else [repr(float(d)) for d in _listed(checkpoints)]
    return {"from_curves": models, "checkpoints": tokens, **options}


def lnd_from_curves(from_curves, checkpoints, data=None, example=False, **options):
    """`scalex fit lnd --from-curves ... --checkpoints ...`: L(N,D) fitted to the end-of-cooldown
    losses a curve law predicts per model. `from_curves`: one entry per model, each a folder, a file,
    a list of files or "N=<params>:FILES"; `checkpoints`: token counts. With `data` (a run table, as
    read()) or `example=True` the runs of its one series join them (Study.lnd); the verb's other
    options (curve_law, cooldown, replicates, grid, ...) as its own."""
    if data is not None or example:
        study = Study(_scalex.read_example()) if example else read(data)
        return study.lnd(from_curves=from_curves, checkpoints=checkpoints, **options)
    args = _verb_args("lnd_from_curves", _from_curves_options(from_curves, checkpoints, options))
    return Result("lnd_from_curves", _scalex.lnd_from_curves(_scalex.Options(), args))
