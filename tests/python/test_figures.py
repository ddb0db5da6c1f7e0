"""Views drawn from Python: study.figure() is `scalex render --view`, byte for byte, at the size
asked, and shows itself inline in Jupyter."""
import pathlib
import struct
import xml.dom.minidom

import pytest

import scalex


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # the IHDR chunk: width, height


def test_png_has_the_size_asked():
    figure = scalex.example().figure("isoflop", size="3.25x2.4in", dpi=200)
    assert png_size(figure.png()) == (650, 480)  # 3.25 in and 2.4 in at 200 dots per inch
    assert figure._repr_png_() == figure.png()
    assert figure._repr_svg_() is None  # inline as PNG unless asked for SVG


def test_svg_parses_and_shows_inline_when_asked():
    figure = scalex.example().figure("pareto", size="single", format="svg")
    document = xml.dom.minidom.parseString(figure.svg())
    assert document.documentElement.tagName == "svg"
    assert figure._repr_svg_() == figure.svg() and figure._repr_png_() is None


@pytest.mark.parametrize("view,suffix,args", [("pareto", "png", ["--size", "single", "--dpi", "150"]),
                                              ("isoflop", "svg", ["--set", "context=2048", "--set", "family=xLSTM"])])
def test_figure_is_the_render_verbs(cli, tmp_path, view, suffix, args):
    ours, theirs = tmp_path / f"module.{suffix}", tmp_path / f"verb.{suffix}"
    options = {"size": "single", "dpi": 150} if suffix == "png" else {"set": {"context": 2048, "family": "xLSTM"}}
    scalex.example().figure(view, path=ours, **options)
    r = cli("render", "--example", "--view", view, *args, "--out", str(theirs), ok=False)
    assert r.returncode == 0, r.stderr
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("view,options,args", [("nosuch", {}, []),
                                               ("pareto", {"size": "huge"}, ["--size", "huge"]),
                                               ("pareto", {"dpi": 5000}, ["--dpi", "5000"]),
                                               ("isoflop", {"set": {"nosuchcontrol": 1}}, ["--set", "nosuchcontrol=1"])])
def test_figure_errors_carry_the_render_message(cli, tmp_path, view, options, args):
    r = cli("render", "--example", "--view", view, *args, "--out", str(tmp_path / "f.png"), ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.example().figure(view, **options).png()
    assert str(e.value) and str(e.value) in r.stderr


@pytest.mark.parametrize("view,options,args", [("nosuch", {}, []),
                                               ("pareto", {"size": "huge"}, ["--size", "huge"]),
                                               ("pareto", {"dpi": 10}, ["--dpi", "10"]),
                                               ("pareto", {"style": "glossy"}, ["--style", "glossy"])])
def test_bad_figure_options_are_refused_when_the_figure_is_made(cli, tmp_path, view, options, args):
    # study.figure() raises at once (nothing is drawn until shown or saved), with the verb's message.
    r = cli("render", "--example", "--view", view, *args, "--out", str(tmp_path / "f.png"), ok=False)
    assert r.returncode != 0
    with pytest.raises(scalex.Error) as e:
        scalex.example().figure(view, **options)
    assert str(e.value) and str(e.value) in r.stderr
    with pytest.raises(scalex.Error, match="format: expected png or svg, got 'jpeg'"):
        scalex.example().figure("pareto", format="jpeg")


def test_model_and_table_are_the_render_verbs(cli, tmp_path):
    # figure(model=...) is `render --model`: the roofline draws the added config beside the example's.
    config = str(sorted((pathlib.Path(__file__).resolve().parents[1] / "data" / "configs").glob("*.json"))[0])
    ours, theirs, without = tmp_path / "module.png", tmp_path / "verb.png", tmp_path / "without.png"
    scalex.example().figure("roofline", model=config, size="single", dpi=100, path=ours)
    scalex.example().figure("roofline", size="single", dpi=100, path=without)
    assert cli("render", "--example", "--view", "roofline", "--model", config, "--size", "single", "--dpi", "100",
               "--out", str(theirs), ok=False).returncode == 0
    assert ours.read_bytes() == theirs.read_bytes() != without.read_bytes()
    # table=... with a .csv path is `render --table`: the view's table as the verb writes it.
    ours, theirs = tmp_path / "module.csv", tmp_path / "verb.csv"
    scalex.example().figure("isoflop", table="optima", path=ours)
    assert cli("render", "--example", "--view", "isoflop", "--table", "optima", "--out", str(theirs), ok=False).returncode == 0
    assert ours.read_text() == theirs.read_text() and ours.read_text().startswith("model,budget,")
    # A missing model file is refused when the figure is made, as the verb refuses it.
    missing = str(tmp_path / "none.json")
    r = cli("render", "--example", "--view", "roofline", "--model", missing, "--out", str(tmp_path / "f.png"), ok=False)
    with pytest.raises(scalex.Error) as e:
        scalex.example().figure("roofline", model=missing)
    assert str(e.value) in r.stderr and "none.json" in str(e.value)
