"""The inference-runtime verbs (`scalex fit runtime`, `scalex predict runtime|max-model|crossover`)
and L(N,D) from predicted checkpoints (`scalex fit lnd --from-curves`) from Python: .json() is the
object the verb's --json prints, asked of core/analysis as the verb asks it (RuntimeQueries.h,
LndQueries.h), and bad input is scalex.Error with the verb's message."""
import json
import math

import pandas as pd
import pytest

import scalex
from conftest import shared, without_timings

MEASUREMENTS = "data/xlstm/inference_results.csv"
XLSTM_7B = {"family": "xlstm", "d_model": 4096, "n_layers": 32, "n_heads": 8}
XLSTM_7B_ARGS = ["--family", "xlstm", "--d-model", "4096", "--n-layers", "32", "--n-heads", "8"]


def same(got, expected):
    assert without_timings(got.json()) == without_timings(expected)
    return got.json()


def test_fit_runtime_equals_cli(cli):
    data = shared(MEASUREMENTS)
    got = scalex.fit_runtime(data, stage="decode", loss="l2", points=True)
    o = same(got, cli("fit", "runtime", "--data", data, "--stage", "decode", "--loss", "l2", "--points", "--json"))
    # Decode only: a beta_eff below the H100's 3.35 TB/s roof (the measured kernels never reach it).
    assert o["fits"] and {f["stage"] for f in o["fits"]} == {"decode"}
    assert all(0 < f["beta_eff_over_acc"] <= 1 for f in o["fits"])
    fits = got.tables()["fits"]
    assert isinstance(fits, pd.DataFrame) and len(fits) == len(o["fits"])
    # The defaults are the verb's: both stages, l1, H100.
    same(scalex.fit_runtime(data), cli("fit", "runtime", "--data", data, "--json"))


def test_predict_runtime_equals_cli_and_the_roofline(cli):
    got = scalex.predict_runtime(**XLSTM_7B, batch=4, prefill=8192, accelerator="H100")
    o = same(got, cli("predict", "runtime", *XLSTM_7B_ARGS, "--batch", "4", "--prefill", "8192", "--accelerator", "H100", "--json"))
    # At the roofline (alpha_eff = alpha_acc, eps = 0): TTFT = prefill FLOPs / alpha_acc (Eq. runtimes).
    assert o["ttft_ms"] == pytest.approx(o["prefill_flops"] / o["accelerator"]["flops_per_s"] * 1e3, rel=1e-12)
    half = scalex.predict_runtime(**XLSTM_7B, batch=4, prefill=8192, alpha_eff_fraction=0.5)
    same(half, cli("predict", "runtime", *XLSTM_7B_ARGS, "--batch", "4", "--prefill", "8192", "--alpha-eff-fraction", "0.5", "--json"))
    assert half.json()["ttft_ms"] == pytest.approx(2 * o["ttft_ms"], rel=1e-12)


def test_predict_runtime_with_fitted_rates_equals_cli(cli, tmp_path):
    data = shared(MEASUREMENTS)
    fits = tmp_path / "fits.json"
    fits.write_text(json.dumps(scalex.fit_runtime(data).json()))
    same(scalex.predict_runtime(**XLSTM_7B, batch=8, prefill=4096, fit=fits),
         cli("predict", "runtime", *XLSTM_7B_ARGS, "--batch", "8", "--prefill", "4096", "--fit", str(fits), "--json"))


def test_max_model_and_crossover_equal_cli(cli):
    o = same(scalex.predict_max_model(family="transformer", step_ms=3, prefill=2048),
             cli("predict", "max-model", "--family", "transformer", "--step-ms", "3", "--prefill", "2048", "--json"))
    assert o["best"]["prediction"]["step_ms"] <= 3
    o = same(scalex.predict_crossover(d_model=4096, n_layers=32, n_heads=32, xlstm_n_heads=8, factor=2, stage="decode", batch=8),
             cli("predict", "crossover", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32", "--xlstm-n-heads", "8",
                 "--factor", "2", "--stage", "decode", "--batch", "8", "--json"))
    assert o["advantage_at_1"] < 2 < o["advantage_at_max_context"] and o["context"] > 1


@pytest.mark.parametrize("verb, options, args", [
    (scalex.predict_runtime, {**XLSTM_7B, "accelerator": "X9"}, ["predict", "runtime", *XLSTM_7B_ARGS, "--accelerator", "X9"]),
    (scalex.predict_runtime, {**XLSTM_7B, "fit_model": "xlstm_7b"}, ["predict", "runtime", *XLSTM_7B_ARGS, "--fit-model", "xlstm_7b"]),
    (scalex.predict_max_model, {"family": "transformer"}, ["predict", "max-model", "--family", "transformer"]),
    (scalex.predict_crossover, {"d_model": 4096, "n_layers": 32, "n_heads": 32, "factor": -1},
     ["predict", "crossover", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32", "--factor", "-1"]),
])
def test_runtime_errors_carry_the_cli_message(cli, verb, options, args):
    r = cli(*args, "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        verb(**options)
    assert str(e.value) and str(e.value) in r.stderr


def test_fit_runtime_errors_carry_the_cli_message(cli, tmp_path):
    data = shared(MEASUREMENTS)
    for options, args in (({"stage": "train"}, ["--stage", "train"]), ({"model": "gpt9"}, ["--model", "gpt9"])):
        r = cli("fit", "runtime", "--data", data, *args, "--json", ok=False)
        with pytest.raises(scalex.Error) as e:
            scalex.fit_runtime(data, **options)
        assert str(e.value) and str(e.value) in r.stderr
    missing = str(tmp_path / "none.csv")
    with pytest.raises(scalex.Error, match="none.csv"):
        scalex.fit_runtime(missing)
    with pytest.raises(TypeError, match="json"):
        scalex.fit_runtime(data, json=True)


# ---- fit lnd --from-curves ----------------------------------------------------------------------

PEAK, WARMUP = 3e-4, 200


def rates(steps, cooldown):
    """eta_t of a WSD schedule: linear warm-up, the peak, then a linear cooldown to 0 over the last
    `cooldown` fraction of `steps` (as tests/cli/lnd_from_curves_test.cpp)."""
    start = steps - round(cooldown * steps)
    return [0.0] + [PEAK * t / WARMUP if t <= WARMUP else PEAK if t <= start else PEAK * (steps - t) / (steps - start)
                    for t in range(1, steps + 1)]


def write_run(folder, name, params, steps, cooldown):
    """A tracker export whose validation loss follows the Multi-Power Law (Luo et al., Eq. 7) with the
    authors' 400M parameters and L0 falling with N, with a deterministic +-0.1 % wobble."""
    eta = rates(steps, cooldown)
    prefix = [0.0]
    for e in eta[1:]:
        prefix.append(prefix[-1] + e)
    l0, a, alpha, b, c, beta, gamma = 1.9 + 300 * params ** -0.3, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635
    iters, losses = [], []
    for t in range(0, steps + 1, 50):
        if t == 0:
            loss = 10.8
        else:
            drop = sum((eta[k - 1] - eta[k]) * (1 - (c * eta[k] ** -gamma * (prefix[t] - prefix[k - 1]) + 1) ** -beta)
                       for k in range(WARMUP + 2, t + 1) if eta[k - 1] != eta[k] and eta[k] > 0)
            loss = (l0 + a * prefix[t] ** -alpha - b * drop) * (1 + 0.001 * math.sin(0.7 * t + params * 1e-7))
        iters.append(float(t))
        losses.append(loss)
    config = {"lr": PEAK, "iterations": float(steps), "warmup_steps": float(WARMUP), "scheduler": "wsd", "wsd_fract_decay": cooldown,
              "decay_type": "linear", "batch_size": 64, "sequence_length": 1024, "n_params": params}
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"name": name, "config": config, "history": {"val": {"iter": iters, "val_loss": losses}}}))
    return str(path)


def test_lnd_from_curves_equals_cli(cli, tmp_path):
    models = []
    for n in (1e8, 3e8, 9e8):
        m = f"m{int(n / 1e6)}"
        models.append([write_run(tmp_path, f"{m}-constant", n, 6000, 0), write_run(tmp_path, f"{m}-wsd20", n, 2500, 0.2),
                       write_run(tmp_path, f"{m}-wsd50", n, 4000, 0.5)])
    grid = tmp_path / "grid.txt"
    grid.write_text("logA: 0 5 10\nlogB: 0 5 10\nlogE: -1 0 1\nalpha: 0.2 0.5\nbeta: 0.2 0.5\ngamma: 0.5 1 2\n")
    checkpoints = [1.31072e8, 2.62144e8, 3.93216e8]
    got = scalex.lnd_from_curves(models, checkpoints, grid=grid, replicates=50)
    args = ["fit", "lnd"]
    for m in models:
        args += ["--from-curves", ",".join(m)]
    args += ["--checkpoints", "1.31072e8,2.62144e8,3.93216e8", "--grid", str(grid), "--replicates", "50", "--json"]
    o = same(got, cli(*args))
    points = o["fit"]["points"]
    assert len(points) == 9 and all(p["predicted"] and p["lower"] < p["loss"] < p["upper"] for p in points)
    assert {p["params"] for p in points} == {1e8, 3e8, 9e8}
    # A model with two curves: its law's misfit is not measured, and the verb says which.
    r = cli("fit", "lnd", "--from-curves", ",".join(models[0][:2]), "--checkpoints", "1e8", "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.lnd_from_curves([models[0][:2]], 1e8)
    assert "--from-curves" in str(e.value) and str(e.value) in r.stderr


def test_the_module_is_built_over_core_without_the_program():
    # The runtime questions and the from-curves fit are core/analysis's: the module links no verb of
    # app/cli (whose symbols would name scalex::cli), and has no door to run one.
    import subprocess
    from scalex import _scalex
    symbols = subprocess.run(["nm", "-C", _scalex.__file__], capture_output=True, text=True, check=True).stdout
    assert "scalex::analysis::predictRuntimeQuery" in symbols
    assert "scalex::cli::" not in symbols
    assert not hasattr(_scalex, "verb_json")


def test_study_lnd_from_curves_equals_cli_with_data(cli, tmp_path):
    # The study's measured runs (Besiroglu et al.'s Chinchilla points) beside the predicted checkpoints.
    epoch = shared("data/public/epoch-chinchilla/svg_extracted_data.csv")
    models = [[write_run(tmp_path, f"m{int(n / 1e6)}-{k}", n, steps, c) for k, steps, c in
               (("constant", 6000, 0), ("wsd20", 2500, 0.2), ("wsd50", 4000, 0.5))] for n in (1e8, 3e8, 9e8)]
    got = scalex.read(epoch).lnd(from_curves=models, checkpoints=[1.31072e8, 2.62144e8], replicates=20)
    args = ["fit", "lnd", "--data", epoch]
    for m in models:
        args += ["--from-curves", ",".join(m)]
    o = same(got, cli(*args, "--checkpoints", "1.31072e8,2.62144e8", "--replicates", "20", "--json"))
    points = o["fit"]["points"]
    assert sum(p.get("predicted", False) for p in points) == 6 and len(points) > 6
    with pytest.raises(scalex.Error, match="--checkpoints needs --from-curves"):
        scalex.read(epoch).lnd(checkpoints=[1e8])


def test_lnd_from_curves_stops_on_ctrl_c(tmp_path):
    # SIGINT while the bootstrap of a from-curves fit runs (far more replicates than it could finish):
    # the fit polls the cancel flag, and the call raises KeyboardInterrupt in the interpreter.
    import os
    import subprocess
    import sys
    models = [[write_run(tmp_path, f"m{int(n / 1e6)}-{k}", n, steps, c) for k, steps, c in
               (("constant", 6000, 0), ("wsd20", 2500, 0.2), ("wsd50", 4000, 0.5))] for n in (1e8, 3e8, 9e8)]
    grid = tmp_path / "grid.txt"
    grid.write_text("logA: 0 5 10\nlogB: 0 5 10\nlogE: -1 0 1\nalpha: 0.2 0.5\nbeta: 0.2 0.5\ngamma: 0.5 1 2\n")
    script = f"""
import os, signal, threading
import scalex
threading.Timer(3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    scalex.lnd_from_curves({models!r}, [1.31072e8, 2.62144e8, 3.93216e8], grid={str(grid)!r}, replicates=10**8)
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=os.environ)
    assert r.stdout.strip() == "interrupted", r.stderr
