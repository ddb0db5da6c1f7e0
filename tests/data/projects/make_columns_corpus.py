#!/usr/bin/env python3
"""Projects with run tables in columns (format version 4) for the project fuzz corpus and the bad-project
tests: one written by Scalex itself, and copies with one column damaged. Run from the repository root
after building: python3 tests/data/projects/make_columns_corpus.py build/app/scalex
(example_v1.scalex beside them is the built-in example as committed before run tables were columns:
format version 1, runs/<name>.csv; tests open it as a project of the old layout.)
"""
import json, os, struct, subprocess, sys, tempfile, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MEMBER = "runs/duplicate_row.columns"


def split(blob):
    """magic, version, directory, [column bytes] of a run-table column member (core/data/RunTableColumns.h)"""
    version, n = struct.unpack_from("<II", blob, 16)
    meta = json.loads(blob[24:24 + n])
    at, cols = 24 + n, []
    for c in meta["columns"]:
        cols.append(bytearray(blob[at:at + c["bytes"]]))
        at += c["bytes"]
    return version, meta, cols


def join(version, meta, cols):
    for c, b in zip(meta["columns"], cols):
        c["bytes"] = len(b)
    d = json.dumps(meta, separators=(",", ":")).encode()
    return b"scalex-columns\n\0" + struct.pack("<II", version, len(d)) + d + b"".join(bytes(c) for c in cols)


def rewrite(src, dst, member_bytes):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(os.path.join(HERE, dst), "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, member_bytes if info.filename == MEMBER else zin.read(info.filename))


def column(meta, name):
    return [c["name"] for c in meta["columns"]].index(name)


scalex = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    good = os.path.join(HERE, "columns.scalex")
    subprocess.run([scalex, "convert", os.path.join(HERE, "..", "bad", "duplicate_row.csv"), good], check=True)
    blob = zipfile.ZipFile(good).read(MEMBER)
    rewrite(good, "columns_truncated.scalex", blob[:-5])
    v, meta, cols = split(blob)
    cols[column(meta, "series")][-4:] = struct.pack("<I", 99)
    rewrite(good, "columns_bad_index.scalex", join(v, meta, cols))
    v, meta, cols = split(blob)
    del cols[column(meta, "params")][-8:]
    rewrite(good, "columns_wrong_length.scalex", join(v, meta, cols))
    v, meta, cols = split(blob)
    rewrite(good, "columns_future_version.scalex", join(v + 1, meta, cols))
