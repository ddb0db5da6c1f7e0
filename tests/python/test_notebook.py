"""The example notebook (examples/scaling_laws.ipynb) runs headless from top to bottom with
Debian's jupyter-nbconvert, and what it shows is the paper's: its asserts hold (a failed one stops
nbconvert) and its printed lines carry the numbers."""
import json
import os
import shutil
import subprocess

from conftest import REPO, SHARED, shared


def test_example_notebook_runs_and_shows_the_papers_numbers(tmp_path):
    shared("data/public/epoch-chinchilla/svg_extracted_data.csv")
    nbconvert = shutil.which("jupyter-nbconvert")
    assert nbconvert, "jupyter-nbconvert is missing (packaging/install-deps.sh installs it)"
    out = tmp_path / "scaling_laws.ipynb"
    r = subprocess.run([nbconvert, "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=600",
                        "--output", str(out), str(REPO / "examples" / "scaling_laws.ipynb")],
                       capture_output=True, text=True, env={**os.environ, "SCALEX_SHARED_DIR": str(SHARED)})
    assert r.returncode == 0, r.stderr[-3000:]
    cells = json.loads(out.read_text())["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    printed = "".join("".join(o.get("text", "")) for o in outputs if o["output_type"] == "stream")
    assert "a = 0.575 (Transformer), 0.547 (xLSTM)" in printed
    assert "E = 1.817, alpha = 0.347" in printed
    # The tables render as DataFrames (HTML in the notebook).
    assert sum("text/html" in o.get("data", {}) for o in outputs) >= 2
    # One figure inline: the IsoFLOP view as a PNG (study.figure), 6.75 x 3.2 in at 100 dpi.
    images = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1
    import base64
    import struct

    png = base64.b64decode(images[0])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (675, 320)
