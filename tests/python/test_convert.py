"""`scalex.convert` against `scalex convert`: the same files, byte for byte, from public studies, the
same project from several inputs, and bad arguments as scalex.Error with the verb's message."""
import pytest

import scalex
from conftest import shared

EPOCH = "data/public/epoch-chinchilla/svg_extracted_data.csv"


@pytest.mark.parametrize("study, suffix", [(EPOCH, ".json"), (EPOCH, ".csv"), (EPOCH, ".tex"),
                                           ("data/public/porian/isoflop_points.csv", ".json")])
def test_convert_writes_the_programs_file(cli, tmp_path, study, suffix):
    source = shared(study)
    r = cli("convert", source, str(tmp_path / f"cli{suffix}"), ok=False)
    assert r.returncode == 0, r.stderr
    assert scalex.convert(source, tmp_path / f"py{suffix}") == tmp_path / f"py{suffix}"
    written = (tmp_path / f"cli{suffix}").read_bytes()
    assert len(written) > 1000 and (tmp_path / f"py{suffix}").read_bytes() == written


def test_convert_inputs_make_the_programs_project(cli, tmp_path):
    # Two run tables (the generated example's) become one project of two tables, read back alike.
    scalex.generate(tmp_path / "example", seed=3)
    tables = sorted(str(p) for p in (tmp_path / "example").glob("*.csv"))
    r = cli("convert", *tables, str(tmp_path / "cli.scalex"), ok=False)
    assert r.returncode == 0, r.stderr
    scalex.convert(tables, tmp_path / "py.scalex")
    got, expected = scalex.read(tmp_path / "py.scalex").runs(), scalex.read(tmp_path / "cli.scalex").runs()
    assert len(got) > 100 and got.equals(expected)
    # --table picks one run table of a project input, as the verb's does.
    name = (tmp_path / "example").glob("*isoflop*.csv").__next__().stem
    r = cli("convert", "--table", name, str(tmp_path / "cli.scalex"), str(tmp_path / "cli-one.csv"), ok=False)
    assert r.returncode == 0, r.stderr
    scalex.convert(tmp_path / "py.scalex", tmp_path / "py-one.csv", table=name)
    assert (tmp_path / "py-one.csv").read_bytes() == (tmp_path / "cli-one.csv").read_bytes()


def test_convert_errors_carry_the_verbs_message(cli, tmp_path):
    source = shared(EPOCH)
    for out, options, args in ((tmp_path / "x.xlsx", {}, []), (tmp_path / "y.csv", {"table": "t"}, ["--table", "t"])):
        r = cli("convert", *args, source, str(out), ok=False)
        assert r.returncode != 0
        with pytest.raises(scalex.Error) as e:
            scalex.convert(source, out, **options)
        assert str(e.value) and str(e.value) in r.stderr
    with pytest.raises(scalex.Error, match="none.csv"):
        scalex.convert(tmp_path / "none.csv", tmp_path / "z.json")
