"""`scalex.generate` against `scalex generate`: the same files, byte for byte, for the same options
and for the defaults, and bad options as scalex.Error with the verb's message."""
import pytest

import scalex


def files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_generate_writes_the_programs_files(cli, tmp_path):
    r = cli("generate", "--seed", "7", "--sigma", "0.01", "--out", str(tmp_path / "cli"), ok=False)
    assert r.returncode == 0, r.stderr
    assert scalex.generate(tmp_path / "py", seed=7, sigma=0.01) == tmp_path / "py"
    written = files(tmp_path / "cli")
    assert "generator.json" in written and sum(n.endswith(".csv") for n in written) == 2
    assert files(tmp_path / "py") == written
    # Another seed draws other losses: the comparison above can fail.
    scalex.generate(tmp_path / "other", seed=8, sigma=0.01)
    assert files(tmp_path / "other") != written


def test_generate_defaults_are_the_verbs(cli, tmp_path):
    r = cli("generate", "--out", str(tmp_path / "cli"), ok=False)
    assert r.returncode == 0, r.stderr
    scalex.generate(str(tmp_path / "py"))
    assert files(tmp_path / "py") == files(tmp_path / "cli")
    # A project reads back as a study with the runs the verb reports.
    project = scalex.generate(tmp_path / "example.scalex", noise_free=True)
    runs = int(r.stdout.split()[1])
    assert scalex.read(project).n_runs == runs


@pytest.mark.parametrize("options, args", [({"sigma": -1}, ["--sigma", "-1"]), ({"seed": -3}, ["--seed", "-3"])])
def test_generate_errors_carry_the_verbs_message(cli, tmp_path, options, args):
    r = cli("generate", *args, "--out", str(tmp_path / "cli"), ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.generate(tmp_path / "py", **options)
    assert str(e.value) and str(e.value) in r.stderr
