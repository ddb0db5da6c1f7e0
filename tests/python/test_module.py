"""The module gives the numbers the program gives: every analysis' .json() equals the object of
`scalex fit <verb> --json` on the same study with the same options."""
import io
import json

import pandas as pd
import pytest

import scalex
from conftest import shared, without_timings

EPOCH = "data/public/epoch-chinchilla/svg_extracted_data.csv"
MISFITTING = "data/public/misfitting/scaling_results_last_ckpt_only.csv"

# (verb, module options, the same as command-line options); the verbs' defaults where none are given.
ANALYSES = [
    ("isoflop", {}, []),
    ("isoflop", {"budget_range": (5e18, 2e20)}, ["--budget-range", "5e18", "2e20"]),
    ("slopes", {}, []),
    ("pareto", {"resamples": 200}, ["--resamples", "200"]),
    ("lnd", {"no_extrapolation": True}, ["--no-extrapolation"]),
    ("context", {}, []),
]


def same_as_cli(cli, study, data_args, verb, options, args):
    got = getattr(study, verb)(**options).json()
    expected = cli("fit", verb, *data_args, *args, "--json")
    assert without_timings(got) == without_timings(expected)
    return got


@pytest.mark.parametrize("verb,options,args", ANALYSES, ids=lambda v: v if isinstance(v, str) else None)
def test_example_equals_cli(cli, verb, options, args):
    same_as_cli(cli, scalex.example(), ["--example"], verb, options, args)


def test_example_isoflop_laws_are_the_papers():
    # The built-in example's IsoFLOP exponents at context 8192 (Tab. estimated_optimal_flops_tokens_powerlaw):
    # Transformer a = 0.575, xLSTM a = 0.547.
    o = scalex.example().isoflop(ctx=8192).json()
    a = {s["name"]: s["a"] for s in o["series"]}
    assert a["transformer"] == pytest.approx(0.575, abs=0.005)
    assert a["xlstm"] == pytest.approx(0.547, abs=0.005)


@pytest.mark.parametrize("verb,options,args", [("lnd", {"gamma": "1", "no_extrapolation": True}, ["--gamma", "1", "--no-extrapolation"]),
                                               ("pareto", {"resamples": 0}, ["--resamples", "0"])])
def test_epoch_chinchilla_equals_cli(cli, verb, options, args):
    path = shared(EPOCH)
    same_as_cli(cli, scalex.read(path), ["--data", path], verb, options, args)


@pytest.mark.parametrize("verb,options,args", [("lnd", {"no_extrapolation": True}, ["--no-extrapolation"]),
                                               ("pareto", {"resamples": 0}, ["--resamples", "0"]),
                                               ("isoflop", {}, [])])
def test_misfitting_equals_cli(cli, verb, options, args):
    path = shared(MISFITTING)
    r = cli("fit", verb, "--data", path, *args, "--json", ok=False)
    if r.returncode != 0:  # the verb refuses this study: the module raises its message
        with pytest.raises(scalex.Error) as e:
            getattr(scalex.read(path), verb)(**options)
        assert str(e.value) in r.stderr
        return
    same_as_cli(cli, scalex.read(path), ["--data", path], verb, options, args)


def test_scope_options_equal_cli(cli):
    path = shared(EPOCH)
    same_as_cli(cli, scalex.read(path), ["--data", path], "lnd", {"where": "loss<3.43", "gamma": "1", "huber_delta": 1e-3,
                                                                   "no_extrapolation": True},
                ["--where", "loss<3.43", "--gamma", "1", "--huber", "1e-3", "--no-extrapolation"])


def test_dataframe_study_equals_csv_study():
    path = shared(EPOCH)
    frame = pd.read_csv(path, float_precision="round_trip")  # pandas' default parser can be 1 ulp off
    from_frame, from_csv = scalex.read(frame, name="svg_extracted_data.csv"), scalex.read(path)
    assert from_frame.n_runs == from_csv.n_runs == len(frame)
    for verb, options in [("lnd", {"gamma": "1", "no_extrapolation": True}), ("pareto", {"resamples": 0})]:
        a = without_timings(getattr(from_frame, verb)(**options).json())
        b = without_timings(getattr(from_csv, verb)(**options).json())
        assert a == b, verb
    # Unnamed, the frame's series is named after it.
    assert scalex.read(frame).pareto(resamples=0).json()["label"] == "dataframe"
    # The runs read back: every run, N, D and the loss as the file has them.
    runs = from_frame.runs()
    assert len(runs) == len(frame)
    assert list(runs["loss"]) == list(frame["loss"])


def test_tables_are_dataframes():
    r = scalex.example().isoflop(ctx=8192)
    tables = r.tables()
    profiles = tables["profiles"]
    assert isinstance(profiles, pd.DataFrame)
    o = r.json()
    assert len(profiles) == sum(len(s["profiles"]) for s in o["series"])
    assert set(profiles["series"]) == {"transformer", "xlstm"}
    assert set(profiles["context"]) == {8192}


def test_errors_carry_the_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("params,params,loss\n1e8,2e9,3.1\n")  # which column is N: ambiguous
    r = cli("fit", "isoflop", "--data", str(bad), "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.read(str(bad)).isoflop()
    message = str(e.value)
    assert message and message in r.stderr
    assert "bad.csv, line 1, column 'params'" in message

    r = cli("fit", "isoflop", "--example", "--where", "nosuchcolumn>3", "--json", ok=False)
    with pytest.raises(scalex.Error) as e:
        scalex.example().isoflop(where="nosuchcolumn>3")
    assert str(e.value) in r.stderr and "nosuchcolumn" in str(e.value)

    r = cli("fit", "isoflop", "--data", str(tmp_path / "missing.csv"), "--json", ok=False)
    with pytest.raises(scalex.Error) as e:
        scalex.read(str(tmp_path / "missing.csv"))
    assert str(e.value) in r.stderr and "missing.csv" in str(e.value)


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="budget_rnage"):
        scalex.example().isoflop(budget_rnage=(1, 2))


CHINCHILLA = {"E": (0, 10), "A": (0, 1e6), "B": (0, 1e7), "alpha": "0:2@0.3", "beta": (0, 2)}
CHINCHILLA_ARGS = ["--param", "E=0:10", "--param", "A=0:1e6", "--param", "B=0:1e7", "--param", "alpha=0:2@0.3",
                   "--param", "beta=0:2"]


def test_law_equals_cli(cli):
    # A law typed as a formula, fitted on the models below 2e9 parameters and scored on the others.
    path = shared(EPOCH)
    formula = "L = E + A/N^alpha + B/D^beta"
    got = scalex.read(path).law(formula, params=CHINCHILLA, where="loss<3.43", train="N<2e9", resamples=20).json()
    expected = cli("fit", "law", "--data", path, "--where", "loss<3.43", "--formula", formula, "--train", "N<2e9",
                   "--resamples", "20", *CHINCHILLA_ARGS, "--json")
    assert without_timings(got) == without_timings(expected)
    assert got["test"]["n"] > 10


def test_law_errors_carry_the_cli_message(cli):
    r = cli("fit", "law", "--example", "--formula", "L = E + A/X^alpha", "--param", "E=0:5", "--param", "A=0:1e4",
            "--param", "alpha=0:1", "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.example().law("L = E + A/X^alpha", params={"E": (0, 5), "A": (0, 1e4), "alpha": (0, 1)})
    assert "unknown name 'X'" in str(e.value) and str(e.value) in r.stderr


@pytest.mark.parametrize("study,data_args", [("example", []), ("epoch", None), ("misfitting", None)])
def test_optimal_equals_cli(cli, study, data_args):
    # `predict optimal` reads the built-in example when given no --data.
    if study == "example":
        s = scalex.example()
    else:
        path = shared(EPOCH if study == "epoch" else MISFITTING)
        s, data_args = scalex.read(path), ["--data", path]
    r = cli("predict", "optimal", *data_args, "--budget", "1e22", "--resamples", "50", "--json", ok=False)
    if r.returncode != 0:
        with pytest.raises(scalex.Error) as e:
            s.optimal(budget=1e22, resamples=50)
        assert str(e.value) in r.stderr
        return
    got = s.optimal(budget=1e22, resamples=50).json()
    assert without_timings(got) == without_timings(json.loads(r.stdout))
    assert got["given"] == {"budget": 1e22}


def test_a_long_fit_stops_on_keyboard_interrupt():
    # Ctrl-C during the L(N,D) fit (its 8000 starts take seconds) stops the fit's workers and raises
    # KeyboardInterrupt, nothing else (no crash, no result). In a fresh interpreter: the analyses
    # keep their results for the process. (How soon: 3.06 s for a signal at 3 s on the development
    # machine, where the whole fit takes about 30 s; tests time nothing.)
    import subprocess
    import sys

    script = ("import os, signal, threading, scalex\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              "threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
              "try:\n"
              "    scalex.example().lnd()\n"
              "    print('finished')\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted')\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert r.stdout.strip() == "interrupted", r.stderr


def test_reading_equals_check(cli):
    # The study's reading (roles with their evidence, budgets) is `scalex check --json`'s.
    path = shared("data/public/porian/isoflop_points.csv")
    reading = scalex.read(path).reading()
    expected = cli("check", path, "--json")
    assert list(reading["column"]) == [r["column"] for r in expected["roles"]]
    assert list(reading["role"]) == [r["role"] for r in expected["roles"]]
    assert list(reading["evidence"]) == [r["evidence"] for r in expected["roles"]]
    assert reading.attrs["conditions"] == expected["series_by"]
    assert reading.attrs["budget_source"] == expected["budget_source"]
    assert reading.attrs["budget_levels"] == expected["budget_levels"]
