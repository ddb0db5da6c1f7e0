"""The README's notebook example (the first Python block of its "## Python" section) runs as shown."""
import re

import pandas as pd

from conftest import REPO


def readme_example():
    text = (REPO / "README.md").read_text()
    section = text[text.index("\n## Python\n"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_as_shown():
    code = readme_example()
    lines = code.strip().splitlines()
    assert len(lines) == 5 and lines[0] == "import scalex"
    namespace = {}
    *body, last = lines
    exec("\n".join(body), namespace)
    shown = eval(last.split("#")[0], namespace)  # the cell's value: what a notebook shows
    # The figure of the last line shows itself inline as a PNG.
    assert shown._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    profiles = namespace["laws"].tables()["profiles"]
    assert isinstance(profiles, pd.DataFrame) and len(profiles) > 0
    # The paper's IsoFLOP exponents on the budgets of its Fig. 4 at context 8192: 0.575 and 0.547.
    a = {(s["name"], s["context"]): s["a"] for s in namespace["laws"].json()["series"]}
    assert abs(a["transformer", 8192] - 0.575) < 0.005 and abs(a["xlstm", 8192] - 0.547) < 0.005
