#!/usr/bin/env python3
"""`import codec` beside the Python libraries modders' tools use, on the
corpus, in one run: each side reads every file of a format into Python
objects and writes it back, timed with `time.perf_counter` (the median of
`--rounds`).

    python codec-py/bench/speed.py [--rounds 5] [--markdown]

Peers, where installed: oead (AAMP, BYML, SARC, Yaz0), pymsbt (MSBT), ainb
(AINB). evfl is left out until codec reads event flows (issue 73).

Columns:

- read: bytes to the document. codec builds every Python value; oead
  builds its C++ document and wraps only the root, each value becoming a
  Python object when it is asked for.
- read + visit: read, then every value of the document asked for once
  (the conversion to Python objects counted on both sides). For pymsbt and
  ainb, whose documents are Python objects already, it is the read.
- The SARC rows read every member as `bytes` (oead: `bytes(f.data)`), and
  again as views of the archive (`read(copy=False)`; oead: `f.data`).
- write: the document to `bytes`. oead's writers return their own buffer
  (`oead.Bytes`); its time includes making that a `bytes`, the type
  codec returns and the type `codec.read` and most Python APIs take.

Each ratio is the peer's time over codec's: above 1, codec is faster.
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
import warnings
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


def corpus(sub, magic):
    out = []
    for p in sorted((CORPUS / sub).rglob("*")):
        if p.is_file() and p.name != "MANIFEST.tsv":
            data = p.read_bytes()
            if data.startswith(magic):
                out.append(data)
    return out


def visit(x):
    """Asks for every value of a plain document once."""
    if isinstance(x, dict):
        for v in x.values():
            visit(v)
    elif isinstance(x, list):
        for v in x:
            visit(v)


def readable(data, read):
    ok = []
    for d in data:
        try:
            with quiet():
                read(d)
            ok.append(d)
        except Exception:
            pass
    return ok


@contextlib.contextmanager
def quiet():
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class Table:
    def __init__(self, rounds):
        self.rounds = rounds
        self.rows = []

    def add(self, what, peer, ours_read, ours_visit, ours_write, their_read, their_visit, their_write):
        m = lambda f: median(f, self.rounds) if f else None
        with quiet():
            self.rows.append((what, peer, m(ours_read), m(their_read), m(ours_visit), m(their_visit),
                              m(ours_write), m(their_write)))

    def print(self, markdown):
        def ms(t):
            if t is None:
                return ""
            ms = t * 1e3
            return f"{ms:.1f}" if ms >= 10 else f"{ms:.3g}"

        def ratio(o, t):
            return "" if o is None or t is None else f"**{t / o:.2f}×**"

        head = ["files", "peer", "read: codec / peer ms", "ratio", "read + visit: codec / peer ms", "ratio",
                "write: codec / peer ms", "ratio"]
        lines = []
        for what, peer, r, pr, v, pv, w, pw in self.rows:
            lines.append([what, peer, f"{ms(r)} / {ms(pr)}", ratio(r, pr), f"{ms(v)} / {ms(pv)}" if v else "",
                          ratio(v, pv), f"{ms(w)} / {ms(pw)}" if w else "", ratio(w, pw)])
        if markdown:
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for l in lines:
                print("| " + " | ".join(l) + " |")
        else:
            for l in lines:
                print("; ".join(f"{h} {c.replace('**', '')}" for h, c in zip(head, l) if c))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    table = Table(args.rounds)

    try:
        import oead
    except ImportError:
        oead = None
        print("oead is not installed: AAMP, BYML, SARC and Yaz0 skipped", file=sys.stderr)
    if oead:
        def oead_visit_byml(x):
            if isinstance(x, oead.byml.Hash):
                for v in x.values():
                    oead_visit_byml(v)
            elif isinstance(x, oead.byml.Array):
                for v in x:
                    oead_visit_byml(v)

        def oead_visit_aamp(l):
            for o in l.objects.values():
                for p in o.params.values():
                    p.v
            for c in l.lists.values():
                oead_visit_aamp(c)

        aamp = readable(corpus("aamp", b"AAMP"), oead.aamp.ParameterIO.from_binary)
        docs = [codec.read(d) for d in aamp]
        pdocs = [oead.aamp.ParameterIO.from_binary(d) for d in aamp]
        table.add(f"AAMP ({len(aamp)} files)", "oead 1.3",
                  lambda: [codec.read(d) for d in aamp],
                  lambda: [visit(codec.read(d)["param_root"]) for d in aamp],
                  lambda: [codec.write(x) for x in docs],
                  lambda: [oead.aamp.ParameterIO.from_binary(d) for d in aamp],
                  lambda: [oead_visit_aamp(oead.aamp.ParameterIO.from_binary(d)) for d in aamp],
                  lambda: [bytes(x.to_binary()) for x in pdocs])

        byml = readable(corpus("byml", b"BY") + corpus("byml", b"YB"), oead.byml.from_binary)
        docs = [codec.read(d) for d in byml]
        pdocs = [oead.byml.from_binary(d) for d in byml]
        big = [d[:2] == b"BY" for d in byml]
        table.add(f"BYML ({len(byml)} files oead reads)", "oead 1.3",
                  lambda: [codec.read(d) for d in byml],
                  lambda: [visit(codec.read(d)["document"]) for d in byml],
                  lambda: [codec.write(x) for x in docs],
                  lambda: [oead.byml.from_binary(d) for d in byml],
                  lambda: [oead_visit_byml(oead.byml.from_binary(d)) for d in byml],
                  lambda: [bytes(oead.byml.to_binary(x, big_endian=b)) for x, b in zip(pdocs, big)])

        # Two shapes: the corpus's small archives, and an event pack (its
        # Yaz0 taken off first) of larger members.
        shapes = [("SARC (2 archives, 24 members)", corpus("sarc", b"SARC"))]
        pack = CORPUS / "yaz0" / "Demo344_1.sbeventpack"
        if pack.is_file():
            inner = codec.decompress(pack.read_bytes())
            shapes.append((f"SARC (an event pack, {len(codec.read(inner)['files'])} members, "
                           f"{len(inner) / 1e6:.1f} MB)", [inner]))
        for what, sarc in shapes:
            docs = [codec.read(d) for d in sarc]
            table.add(what, "oead 1.3",
                      lambda: [codec.read(d) for d in sarc],
                      None,
                      lambda: [codec.write(x) for x in docs],
                      lambda: [{f.name: bytes(f.data) for f in oead.Sarc(d).get_files()} for d in sarc],
                      None,
                      lambda: [bytes(oead.SarcWriter.from_sarc(oead.Sarc(d)).write()[1]) for d in sarc])
            # Members as views of the archive, no copy: `copy=False`, and
            # oead's own `File.data`.
            table.add(what.replace(")", "; members as memoryviews)", 1), "oead 1.3",
                      lambda: [codec.read(d, copy=False) for d in sarc],
                      None,
                      None,
                      lambda: [{f.name: f.data for f in oead.Sarc(d).get_files()} for d in sarc],
                      None,
                      None)

        yaz0 = corpus("yaz0", b"Yaz0")
        plain = [codec.decompress(d) for d in yaz0]
        yaz0_layer = [{"kind": "yaz0", "alignment": 0}]
        table.add(f"Yaz0 ({len(yaz0)} files, {sum(map(len, plain)) / 1e6:.1f} MB inside)", "oead 1.3",
                  lambda: [codec.decompress(d) for d in yaz0],
                  None,
                  lambda: [codec.compress(d, yaz0_layer) for d in plain],
                  lambda: [bytes(oead.yaz0.decompress(d)) for d in yaz0],
                  None,
                  lambda: [bytes(oead.yaz0.compress(d)) for d in plain])

    try:
        sys.path.insert(0, str(ROOT / "tests" / "peers"))
        from msbt import is_le_utf16, load_pymsbt
        with quiet():
            MSBTFile = load_pymsbt()
            from pymsbt.msbt_write import MSBTWriter
    except ImportError:
        print("pymsbt is not installed: MSBT skipped", file=sys.stderr)
    else:
        paths = [p for p in sorted((CORPUS / "msbt").rglob("*.msbt")) if is_le_utf16(p.read_bytes())]
        data = [p.read_bytes() for p in paths]
        out = Path(tempfile.mkdtemp()) / "out.msbt"
        with quiet():
            pdocs = [MSBTFile(str(p)) for p in paths]
            writable = []
            for m in pdocs:
                try:
                    MSBTWriter(m, str(out)).stream.close()
                    writable.append(m)
                except Exception:
                    pass
        docs = [codec.read(d) for d in data]
        table.add(f"MSBT ({len(data)} files; pymsbt writes {len(writable)})", "pymsbt 1.0.2",
                  lambda: [codec.read(d) for d in data],
                  None,
                  lambda: [codec.write(x) for x in docs],
                  lambda: [MSBTFile(str(p)) for p in paths],
                  None,
                  lambda: [MSBTWriter(m, str(out)).stream.close() for m in writable])

    try:
        from ainb.ainb import AINB
    except ImportError:
        print("ainb is not installed: AINB skipped", file=sys.stderr)
    else:
        ainb = readable(corpus("ainb", b"AIB "), AINB.from_binary)
        docs = [codec.read(d) for d in ainb]
        with quiet():
            pdocs = [AINB.from_binary(d) for d in ainb]
        writable = []
        for x in pdocs:
            try:
                with quiet():
                    x.to_binary()
                writable.append(x)
            except Exception:
                pass
        table.add(f"AINB ({len(ainb)} files; ainb writes {len(writable)})", "ainb 0.2.16",
                  lambda: [codec.read(d) for d in ainb],
                  None,
                  lambda: [codec.write(x) for x in docs],
                  lambda: [AINB.from_binary(d) for d in ainb],
                  None,
                  lambda: [x.to_binary() for x in writable])

    table.print(args.markdown)


if __name__ == "__main__":
    main()
