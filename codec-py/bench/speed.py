#!/usr/bin/env python3
"""`import codec` beside the Python libraries modders' tools use, on the
corpus: each side reads every file of a format into Python objects and
writes it back, timed with `time.perf_counter` (median of `--rounds`).

    python codec-py/bench/speed.py [--rounds 5]

Peers, where installed: oead (AAMP, BYML, SARC, Yaz0), pymsbt (MSBT), ainb
(AINB). Prints one line a format: each side's read and write medians and
the ratios.
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import codec

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("CODEC_CORPUS") or ROOT.parent / "shared" / "corpus")


def median(f, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def files(sub, magic):
    return [p.read_bytes() for p in sorted((CORPUS / sub).rglob("*")) if p.is_file() and p.read_bytes().startswith(magic)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    rounds = ap.parse_args().rounds
    rows = []

    def ours(data):
        docs = [codec.read(d) for d in data]
        return (lambda: [codec.read(d) for d in data]), (lambda: [codec.write(x) for x in docs])

    try:
        import oead
    except ImportError:
        oead = None
    if oead:
        for name, sub, magic, rd, wr in [
            ("AAMP", "aamp", b"AAMP", oead.aamp.ParameterIO.from_binary, lambda d: d.to_binary()),
            ("BYML", "byml", b"BY", oead.byml.from_binary, lambda d: oead.byml.to_binary(d, big_endian=False)),
            ("BYML", "byml", b"YB", oead.byml.from_binary, lambda d: oead.byml.to_binary(d, big_endian=False)),
            ("SARC", "sarc", b"SARC", oead.Sarc, lambda s: oead.SarcWriter.from_sarc(s).write()),
        ]:
            data = files(sub, magic)
            if not data:
                continue
            readable = []
            for d in data:
                try:
                    rd(d)
                    readable.append(d)
                except Exception:
                    pass
            docs = [rd(d) for d in readable]
            r, w = ours(readable)
            rows.append((f"{name} ({len(readable)} files oead reads)", median(r, rounds), median(w, rounds),
                         median(lambda: [rd(d) for d in readable], rounds),
                         median(lambda: [wr(x) for x in docs], rounds), "oead"))
    try:
        sys.path.insert(0, str(ROOT / "tests" / "peers"))
        from msbt import load_pymsbt, is_le_utf16
        with contextlib.redirect_stdout(io.StringIO()):
            MSBTFile = load_pymsbt()
            from pymsbt.msbt_write import MSBTWriter
        paths = [p for p in sorted((CORPUS / "msbt").rglob("*.msbt")) if is_le_utf16(p.read_bytes())]
        data = [p.read_bytes() for p in paths]
        out = Path(tempfile.mkdtemp()) / "out.msbt"
        with contextlib.redirect_stdout(io.StringIO()):
            pdocs = [MSBTFile(str(p)) for p in paths]
            writable = []
            for m in pdocs:
                try:
                    MSBTWriter(m, str(out)).stream.close()
                    writable.append(m)
                except Exception:
                    pass
            r, w = ours(data)
            rows.append((f"MSBT ({len(data)} files)", median(r, rounds), median(w, rounds),
                         median(lambda: [MSBTFile(str(p)) for p in paths], rounds),
                         median(lambda: [MSBTWriter(m, str(out)).stream.close() for m in writable], rounds), "pymsbt"))
    except ImportError:
        pass
    for name, r, w, pr, pw, peer in rows:
        print(f"{name}: codec read {r*1e3:.1f} ms, write {w*1e3:.1f} ms; {peer} read {pr*1e3:.1f} ms, write {pw*1e3:.1f} ms; "
              f"read {pr/r:.2f}x, write {pw/w:.2f}x")


if __name__ == "__main__":
    main()
