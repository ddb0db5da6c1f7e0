#!/usr/bin/env python3
"""Writes the corpus of bad projects beside this script (kept in git; rerun to recreate).
Each file's expected message is in tests/unit/project_test.cpp. The zip bomb is made at test
time instead of being committed."""
import io, json, os, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = ("run_id,model_family,num_params,num_tokens_training,val_loss\n"
        "r1,transformer,1.6e8,3.6e9,3.29\n"
        "r2,xlstm,1.6e8,not-a-number,3.27\n"
        "r3,xlstm,4.1e8,9.0e9,2.89\n")

def manifest(**over):
    m = {"format": "scalex-project", "format_version": 1, "title": "corpus",
         "tables": [{"name": "runs", "file": "runs/runs.csv", "rows": 3, "source": "corpus"}],
         "settings": "settings.json", "recipes": "recipes.json", "results": "results.json"}
    m.update(over)
    return json.dumps(m, indent=2)

def write_zip(name, entries):
    with zipfile.ZipFile(os.path.join(HERE, name), "w", zipfile.ZIP_DEFLATED) as z:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)

def good_entries():
    return [("manifest.json", manifest()), ("runs/runs.csv", RUNS), ("settings.json", "{}"),
            ("recipes.json", "{}"), ("results.json", "{}")]

with open(os.path.join(HERE, "not_a_zip.scalex"), "w") as f:
    f.write("run_id,val_loss\nr1,3.1\n")
write_zip("bad_row.scalex", good_entries())
buf = io.BytesIO()
write_zip("_whole.tmp", good_entries())
whole = open(os.path.join(HERE, "_whole.tmp"), "rb").read()
os.remove(os.path.join(HERE, "_whole.tmp"))
with open(os.path.join(HERE, "truncated.scalex"), "wb") as f:
    f.write(whole[: len(whole) * 2 // 3])
# One byte of the manifest's compressed data flipped: the entry fails its CRC or cannot inflate.
crc = bytearray(whole)
crc[30 + len("manifest.json") + 10] ^= 0xFF
with open(os.path.join(HERE, "damaged_entry.scalex"), "wb") as f:
    f.write(bytes(crc))
write_zip("missing_manifest.scalex", good_entries()[1:])
write_zip("manifest_not_json.scalex", [("manifest.json", "{\"format\": \"scalex-project\",\n  \"format_version\": 1,\n  oops\n}")] + good_entries()[1:])
write_zip("manifest_not_object.scalex", [("manifest.json", "[1, 2, 3]")] + good_entries()[1:])
write_zip("future_version.scalex", [("manifest.json", manifest(format_version=99))] + good_entries()[1:])
write_zip("wrong_format.scalex", [("manifest.json", manifest(format="other-app"))] + good_entries()[1:])
write_zip("path_traversal.scalex", good_entries() + [("runs/../../evil.csv", RUNS)])
write_zip("absolute_path.scalex", good_entries() + [("/tmp/evil.csv", RUNS)])
write_zip("backslash_path.scalex", good_entries() + [("runs\\..\\evil.csv", RUNS)])
write_zip("duplicate_entry.scalex", good_entries() + [("manifest.json", manifest(title="second"))])
write_zip("missing_table.scalex", [e for e in good_entries() if e[0] != "runs/runs.csv"])
write_zip("row_count_mismatch.scalex", [("manifest.json", manifest(tables=[{"name": "runs", "file": "runs/runs.csv", "rows": 5, "source": "corpus"}]))] + good_entries()[1:])
write_zip("bad_settings.scalex", good_entries()[:2] + [("settings.json", json.dumps({"common": {"huber_delta": -1}}))] + good_entries()[3:])
write_zip("bad_table_name.scalex", [("manifest.json", manifest(tables=[{"name": "../x", "file": "runs/../x.csv", "rows": 3}]))] + good_entries()[1:])
# Loss curves and inference measurements (format version 2): a curves entry whose content is
# bad, a measurement entry whose content is bad, and a curve-set name that leaves its folder.
CURVES = "run_id,step,tokens,train_loss,val_loss,lr\nr1,0,,10.5,,0\nr1,100,819200,6.1,5.9,0.0003\n"
INFERENCE = ("model,family,batchsize,prefill,num_params,ttft_ms,steptime_ms,failed\n"
             "llama2_160m,llama2,1,128,162000000,5.5,10.25,False\n")
def sets_manifest(curves_name="c", inference_name="m"):
    return manifest(format_version=2,
                    curves=[{"name": curves_name, "file": "curves/%s.csv" % curves_name, "curves": 1, "points": 2}],
                    inference=[{"name": inference_name, "file": "inference/%s.csv" % inference_name, "df_dicts": [],
                                "measurements": 1, "models": 1}])
def sets_entries(curves=CURVES, inference=INFERENCE):
    return ([("manifest.json", sets_manifest())] + good_entries()[1:2] +
            [("curves/c.csv", curves), ("inference/m.csv", inference)] + good_entries()[2:])
write_zip("with_sets.scalex", sets_entries())
write_zip("bad_curves_content.scalex", sets_entries(curves="run_id,step,val_loss\nr1,0,3.5\nr1,-50,3.4\n"))
write_zip("bad_inference_content.scalex",
          sets_entries(inference="model,family,batchsize,prefill,ttft_ms,steptime_ms\nx,gpt,1,128,5.5,10\n"))
write_zip("bad_curves_name.scalex",
          [("manifest.json", sets_manifest(curves_name="../c"))] + sets_entries()[1:])
