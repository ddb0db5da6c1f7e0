"""The verbs beyond the fits: intervals (`scalex fit bootstrap`), plans (`scalex plan`, `--replay`,
`--design`) and accounting (`scalex account`) give from Python the object their --json prints, and
their errors arrive as scalex.Error with the verb's message."""
import csv
import pathlib

import pandas as pd
import pytest

import scalex
from conftest import REPO, shared, without_timings

EPOCH = "data/public/epoch-chinchilla/svg_extracted_data.csv"
CHINCHILLA = {"E": (0, 10), "A": (0, 1e6), "B": (0, 1e7), "alpha": "0:2@0.3", "beta": (0, 2)}
CHINCHILLA_ARGS = ["--param", "E=0:10", "--param", "A=0:1e6", "--param", "B=0:1e7", "--param", "alpha=0:2@0.3",
                   "--param", "beta=0:2"]
FORMULA = "L = E + A/N^alpha + B/D^beta"
CONFIGS = sorted((REPO / "tests" / "data" / "configs").glob("*.json"))


def same(got, expected):
    assert without_timings(got.json()) == without_timings(expected)
    return got.json()


# ---- fit bootstrap ---------------------------------------------------------------------------

def test_isoflop_intervals_equal_cli_and_hold_the_papers_exponent(cli):
    got = scalex.example().bootstrap(of="isoflop", family="xlstm", ctx=8192, resamples=200, at_budget=1e22)
    o = same(got, cli("fit", "bootstrap", "--example", "--of", "isoflop", "--family", "xlstm", "--ctx", "8192",
                      "--resamples", "200", "--at-budget", "1e22", "--json"))
    assert o["of"] == "isoflop"
    a = next(i for i in o["intervals"] if i["name"] == "a")
    # The built-in example's xLSTM exponent is the paper's a = 0.547 (Tab. estimated_optimal_flops_tokens_powerlaw),
    # and its 95 % interval holds it.
    assert a["estimate"] == pytest.approx(0.547, abs=0.005)
    assert a["lower"] < a["estimate"] < a["upper"]
    intervals = got.tables()["intervals"]
    assert isinstance(intervals, pd.DataFrame) and "a" in set(intervals["name"])


def test_slope_intervals_equal_cli(cli):
    same(scalex.example().bootstrap(of="slopes", family="xlstm", ctx=8192, resamples=100),
         cli("fit", "bootstrap", "--example", "--of", "slopes", "--family", "xlstm", "--ctx", "8192", "--resamples", "100", "--json"))


def test_surface_intervals_equal_cli_at_a_point(cli):
    # Epoch's Chinchilla replication, gamma held at 1, the loss at (7e9, 2e12) with its interval.
    path = shared(EPOCH)
    same(scalex.read(path).bootstrap(of="lnd", gamma="1", resamples=20, at=[(7e9, 2e12)]),
         cli("fit", "bootstrap", "--data", path, "--of", "lnd", "--gamma", "1", "--resamples", "20", "--at", "7e9,2e12", "--json"))


@pytest.mark.parametrize("options,args", [({}, []),
                                          ({"of": "lnd"}, ["--of", "lnd"]),
                                          ({"of": "curves"}, ["--of", "curves"]),
                                          ({"of": "isoflop", "level": 1.5}, ["--of", "isoflop", "--level", "1.5"])])
def test_bootstrap_errors_carry_the_cli_message(cli, options, args):
    # No --of; several series to pick from (the example has six); an unknown fit; a level outside (0, 1).
    r = cli("fit", "bootstrap", "--example", *args, "--resamples", "10", "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.example().bootstrap(resamples=10, **options)
    assert str(e.value) and str(e.value) in r.stderr


# ---- plan --------------------------------------------------------------------------------------

def test_plan_equals_cli(cli, tmp_path):
    path = shared(EPOCH)
    out = tmp_path / "picks.csv"
    got = scalex.read(path).plan(FORMULA, params=CHINCHILLA, where="loss<3.43", grid_n=(1e8, 1e10, 5), grid_d="1e9:1e12:5",
                                 target={"N": 7e9, "D": 2e12}, pick=3, out=out)
    o = same(got, cli("plan", "--data", path, "--where", "loss<3.43", "--formula", FORMULA, *CHINCHILLA_ARGS, "--grid-n", "1e8:1e10:5",
                      "--grid-d", "1e9:1e12:5", "--target", "N=7e9,D=2e12", "--pick", "3", "--json"))
    picks = o["groups"][0]["picks"]
    assert len(picks) == 3 and o["groups"][0]["candidates"] == 25
    # --out: the picks as planned runs, one row each.
    with open(out, newline="") as f:
        assert len(list(csv.DictReader(f))) == 3
    assert len(got.tables()["groups.picks"]) == 3


def test_plan_replay_equals_cli(cli):
    path = shared(EPOCH)
    got = scalex.read(path).plan(FORMULA, params=CHINCHILLA, where="loss<3.43", replay=True, pool="N<2e9", target="N>=2e9", budget=0.1)
    o = same(got, cli("plan", "--data", path, "--where", "loss<3.43", "--formula", FORMULA, *CHINCHILLA_ARGS, "--replay",
                      "--pool", "N<2e9", "--target", "N>=2e9", "--budget", "0.1", "--json"))
    assert [c["at"] for c in o["checkpoints"]] == [0.01, 0.05, 0.1]


def test_design_equals_cli(cli, tmp_path):
    out = tmp_path / "design.csv"
    got = scalex.design(study_budget=1e21, target_budget=1e23, seeds=20, out=out)
    o = same(got, cli("plan", "--design", "--study-budget", "1e21", "--target-budget", "1e23", "--seeds", "20", "--json"))
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == sum(b["runs"] for b in o["budgets"])
    same(scalex.design(study_budget=1e21, target_budget=1e23, family="transformer", seeds=20, budgets=4),
         cli("plan", "--design", "--study-budget", "1e21", "--target-budget", "1e23", "--family", "transformer", "--seeds", "20",
             "--budgets", "4", "--json"))


@pytest.mark.parametrize("call,args", [
    (lambda s: s.plan(FORMULA, params=CHINCHILLA, target="N=7e9,D=2e12"), ["--formula", FORMULA, *CHINCHILLA_ARGS, "--target", "N=7e9,D=2e12"]),
    (lambda s: s.plan(FORMULA, params=CHINCHILLA, replay=True, pool="N<2e9", target="N>=2e9"),
     ["--formula", FORMULA, *CHINCHILLA_ARGS, "--replay", "--pool", "N<2e9", "--target", "N>=2e9"]),
    (lambda s: s.plan(target="N=7e9,D=2e12", grid_n="1e8:1e10:5", grid_d="1e9:1e12:5"), ["--target", "N=7e9,D=2e12", "--grid-n", "1e8:1e10:5", "--grid-d", "1e9:1e12:5"]),
    (lambda s: s.plan(FORMULA, params=CHINCHILLA, target="N=7e9,D=2e12", grid_n="1e8:1e10"),
     ["--formula", FORMULA, *CHINCHILLA_ARGS, "--target", "N=7e9,D=2e12", "--grid-n", "1e8:1e10"]),
])
def test_plan_errors_carry_the_cli_message(cli, call, args):
    # No candidates; a replay without --budget; no law; a grid without --grid-d.
    path = shared(EPOCH)
    r = cli("plan", "--data", path, *args, "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        call(scalex.read(path))
    assert str(e.value) and str(e.value) in r.stderr


# ---- account -----------------------------------------------------------------------------------

@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_account_of_a_config_equals_cli(cli, config):
    same(scalex.account(config, ctx=4096, batch=2), cli("account", "--config", str(config), "--ctx", "4096", "--batch", "2", "--json"))


def test_account_of_gpt2_counts_its_published_parameters():
    # GPT-2 small: 124,439,808 parameters (the count transformers reports for gpt2, tied embeddings).
    assert scalex.account(REPO / "tests" / "data" / "configs" / "gpt2.json").json()["params"] == 124439808


def test_account_of_the_study_architecture_equals_cli(cli):
    same(scalex.account(family="xlstm", d_model=1024, n_layers=24, n_heads=4),
         cli("account", "--family", "xlstm", "--d-model", "1024", "--n-layers", "24", "--n-heads", "4", "--json"))
    same(scalex.account(family="llama", d_model=1024, n_layers=24, n_heads=8, n_kv_heads=2, cache="gqa", prefill=4000, generate=100,
                        batch=4, f_causal=1, bytes_qkv=1, convention="appendix"),
         cli("account", "--family", "llama", "--d-model", "1024", "--n-layers", "24", "--n-heads", "8", "--n-kv-heads", "2",
             "--cache", "gqa", "--prefill", "4000", "--generate", "100", "--batch", "4", "--f-causal", "1", "--bytes-qkv", "1",
             "--convention", "appendix", "--json"))


@pytest.mark.parametrize("options,args", [
    ({"family": "transformer", "d_model": 1024, "n_layers": 24, "n_heads": 8, "cache": "mlstm"},
     ["--family", "transformer", "--d-model", "1024", "--n-layers", "24", "--n-heads", "8", "--cache", "mlstm"]),
    ({"family": "xlstm", "d_model": 1000, "n_layers": 24, "n_heads": 3}, ["--family", "xlstm", "--d-model", "1000", "--n-layers", "24", "--n-heads", "3"]),
    ({"family": "transformer", "d_model": 1024, "n_layers": 24, "n_heads": 8, "chunk": 32},
     ["--family", "transformer", "--d-model", "1024", "--n-layers", "24", "--n-heads", "8", "--chunk", "32"]),
    ({"family": "gpt", "d_model": 1024, "n_layers": 24, "n_heads": 8}, ["--family", "gpt", "--d-model", "1024", "--n-layers", "24", "--n-heads", "8"]),
    ({"family": "xlstm", "d_model": 1024}, ["--family", "xlstm", "--d-model", "1024"]),
    ({"convention": "fast", "family": "xlstm"}, ["--convention", "fast", "--family", "xlstm"]),
])
def test_account_errors_carry_the_cli_message(cli, options, args):
    r = cli("account", *args, "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.account(**options)
    assert str(e.value) and str(e.value) in r.stderr


def test_account_of_a_bad_config_names_the_file_and_key(cli, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama", "hidden_size": "wide", "num_hidden_layers": 2}')
    r = cli("account", "--config", str(bad), "--json", ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.account(bad)
    assert str(e.value) in r.stderr and "config.json" in str(e.value)
    with pytest.raises(scalex.Error, match="--family does not go with --config"):
        scalex.account(bad, family="xlstm")
    with pytest.raises(TypeError, match="d_modle"):
        scalex.account(family="xlstm", d_modle=1024)


# ---- fit curves, predict curve ----------------------------------------------------------------

def lr_file(prefix, lr, rest):
    return shared(f"data/public/lr-schedules/{prefix}_slimpajama_llama_norm_nlayers12_nhead12_lr{lr}_sched_{rest}"
                  "_bs50x2_ws2_seed0_data_seed1337.json")


def test_curve_fit_equals_cli(cli):
    # The constant-rate and 25,000-step cosine runs of peak rate 1e-3, scored on a sqrt cooldown.
    data = [lr_file("stable-124m", "0.001", "wsd_warmup300_decay_linear_0.0_iter50000"),
            lr_file("cos-10-124m", "0.001", "cos_warmup300_decay_sqrt_0.0_iter25000")]
    holdout = lr_file("ann124-0.2", "0.001", "wsd_warmup300_decay_sqrt_0.2_iter25000")
    got = scalex.curves(data, holdout=holdout, max_iterations=200)
    o = same(got, cli("fit", "curves", "--data", data[0], "--data", data[1], "--holdout", holdout, "--max-iterations", "200", "--json"))
    assert o["law"] == "mpl" and len(o["held_out"]) == 1
    schedule = "wsd:peak=1e-3,steps=150000,warmup=300,cooldown=0.2,decay=sqrt"
    got = scalex.predict_curve(data, schedule=schedule, at=[50000, 150000], law="lra", max_iterations=200)
    o = same(got, cli("predict", "curve", "--data", data[0], "--data", data[1], "--law", "lra", "--schedule", schedule, "--at", "50000",
                      "--at", "150000", "--max-iterations", "200", "--json"))
    with pytest.raises(scalex.Error) as e:
        scalex.curves(data, law="cubic")
    assert str(e.value) in cli("fit", "curves", "--data", data[0], "--law", "cubic", "--json", ok=False).stderr
    with pytest.raises(scalex.Error) as e:
        scalex.predict_curve(data)
    assert str(e.value) in cli("predict", "curve", "--data", data[0], "--json", ok=False).stderr
