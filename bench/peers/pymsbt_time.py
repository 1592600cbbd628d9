#!/usr/bin/env python3
"""Times pymsbt (the Python MSBT library) reading and writing MSBT files,
for the MSBT bench (`cargo bench -p bench --bench msbt`), which runs it in
the same run as its own measurements and prints the ratios.

pymsbt reads little-endian UTF-16 files only, from a path (its API), and
writes to a path; both run here as a tool built on it would run them, with
its progress lines sent nowhere. A file pymsbt cannot write is left out of
the writing figure (it is counted). Prints one JSON object:

    {"files": N, "bytes": B, "decode_s": [...], "encode_s": [...],
     "encode_files": M, "encode_failed": K}

each list the seconds of one pass over all the files, `--rounds` of them.

    python tests-venv/bin/python bench/peers/pymsbt_time.py DIR [--rounds 5]
"""

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "peers"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from msbt import load_pymsbt, is_le_utf16  # tests/peers/msbt.py

    with contextlib.redirect_stdout(io.StringIO()):
        MSBTFile = load_pymsbt()
        from pymsbt.msbt_write import MSBTWriter
    paths = sorted(p for p in args.corpus.rglob("*.msbt") if is_le_utf16(p.read_bytes()))
    size = sum(p.stat().st_size for p in paths)
    sink = io.StringIO()
    decode_s, encode_s = [], []
    out = Path(tempfile.mkdtemp()) / "out.msbt"
    docs = []
    with contextlib.redirect_stdout(sink):
        for p in paths:
            docs.append(MSBTFile(str(p)))
        writable, failed = [], 0
        for d in docs:
            try:
                MSBTWriter(d, str(out)).stream.close()
                writable.append(d)
            except Exception:
                failed += 1
        for _ in range(args.rounds):
            t = time.perf_counter()
            for p in paths:
                MSBTFile(str(p))
            decode_s.append(time.perf_counter() - t)
            sink.seek(0)
            sink.truncate()
            t = time.perf_counter()
            for d in writable:
                MSBTWriter(d, str(out)).stream.close()
            encode_s.append(time.perf_counter() - t)
            sink.seek(0)
            sink.truncate()
    os.unlink(out)
    print(json.dumps({
        "files": len(paths),
        "bytes": size,
        "decode_s": decode_s,
        "encode_s": encode_s,
        "encode_files": len(writable),
        "encode_failed": failed,
    }))


if __name__ == "__main__":
    main()
