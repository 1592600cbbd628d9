#!/usr/bin/env python3
"""The community's own libraries judge codec's text forms, on every corpus file.

For each format with a text form that a peer library reads and writes:

- the peer reads `codec to-text` output as the same document it reads from
  the binary: it writes the same bytes from our text as from the binary (or,
  for AINB, as from its own JSON of the file);
- `codec from-text` reads the peer's own text of the file, and the peer
  reads the binary we write as the same document (its text of our binary
  equals its text of the original).

Peers, pinned in requirements.txt beside this file: dt-12345's `ainb` for
AINB JSON, `oead` for AAMP and BYML YAML.

    python3 tests/peers/check.py [--codec target/debug/codec] [--corpus DIR]

Without the libraries the script says so and exits 0; with CI=true a missing
library or corpus is a failure. Ends with `N passed, N failed, N skipped`.
"""

import argparse
import contextlib
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped


def quiet(f, *args):
    """Calls a peer function with its prints (warnings) silenced."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return f(*args)


class Codec:
    def __init__(self, exe, scratch):
        self.exe = exe
        self.scratch = Path(scratch)
        self.n = 0

    def _out(self, suffix):
        self.n += 1
        return self.scratch / f"out{self.n}{suffix}"

    def run(self, *args):
        r = subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"codec {' '.join(map(str, args))}: {r.stderr.strip()}")

    def to_text(self, path, suffix):
        out = self._out(suffix)
        self.run("to-text", path, "-o", out, "--force")
        return out.read_text(encoding="utf-8")

    def from_text(self, text, suffix, *extra):
        src = self._out(suffix)
        src.write_text(text, encoding="utf-8")
        out = self._out(".bin")
        self.run("from-text", src, "-o", out, "--force", *extra)
        return out.read_bytes()


def check(name, files, case, known_errors=None):
    """Runs `case(path)` on each file; it returns True (pass), False (fail,
    with a reason printed) or None (the peer cannot read this file: skipped).
    `known_errors`: file name -> the peer's error that is not counted
    (default: the libraries' of `KNOWN_PEER_ERRORS`)."""
    t = Tally()
    failures = []
    skipped = []
    for p in files:
        known = (KNOWN_PEER_ERRORS if known_errors is None else known_errors).get(p.name)
        try:
            ok = case(p)
        except Exception as e:  # a peer or codec error is this file's failure
            ok = False
            failures.append(f"{p.name}: {type(e).__name__}: {str(e)[:300]}")
        else:
            if ok is False:
                failures.append(f"{p.name}: documents differ")
        if known and not ok:
            if failures and failures[-1].startswith(p.name):
                failures.pop()
            ok = None
            print(f"    peer error, not counted: {p.name}: {known}")
        if ok is None:
            t.skipped += 1
            skipped.append(p.name)
        elif ok:
            t.passed += 1
        else:
            t.failed += 1
    print(f"{name}: {t.passed} passed, {t.failed} failed, {t.skipped} skipped")
    for f in failures[:10]:
        print(f"    FAILED {f}")
    if len(failures) > 10:
        print(f"    ... and {len(failures) - 10} more")
    if skipped:
        print(f"    skipped (the peer cannot read the binary, or a peer error above): {', '.join(skipped[:6])}{' ...' if len(skipped) > 6 else ''}")
    return t


def same_document(a, b):
    """Equal JSON documents, numbers compared as f32."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))

    def eq(x, y):
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(eq(x[k], y[k]) for k in x)
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(eq(u, v) for u, v in zip(x, y))
        if isinstance(x, float) or isinstance(y, float):
            if isinstance(x, bool) or isinstance(y, bool):
                return x == y
            return struct.pack("<f", x) == struct.pack("<f", y)
        return x == y

    return eq(a, b)


# Files on which a peer's reading of the binary is wrong, so that its reading
# of our text cannot agree with it. Each is checked still to disagree (when
# the peer is fixed, it counts as passed).
KNOWN_PEER_ERRORS = {
    "totk-407-16aa7878-reserialization_test.ainb": (
        "written by an older dt-12345/AINB; the library reads its blackboard file references "
        "and one bool default differently from the game file it was made from "
        "(Npc_Gerudo_Queen_Young.event.root), which codec's reading and JSON agree with"
    ),
    # pymsbt 1.0.2 (tests/peers/msbt.py), as ../shared/research/msbt.md §6 measured it:
    "CtrlGuide_00.msbt": (
        "pymsbt reads the closing tag 0x0F 3.1 as a tag, takes the next code unit for its "
        "parameter size and runs into the next message"
    ),
    "example3.msbt": (
        "pymsbt ends each message at its first zero unit; these messages hold U+0000 before "
        "their end (the next message's offset)"
    ),
}


def ainb_checks(codec, corpus):
    from ainb.ainb import AINB

    files = sorted(p for p in (corpus / "ainb").glob("*.ainb") if p.read_bytes()[:4] == b"AIB ")

    def own_dict(p):
        try:
            return quiet(lambda: AINB.from_binary(p.read_bytes()).as_dict())
        except Exception:
            return None

    def ours_read_by_ainb(p):
        theirs = own_dict(p)
        if theirs is None:
            return None
        ours = codec.to_text(p, ".json")
        try:
            from_theirs = quiet(lambda: AINB.from_dict(theirs).to_binary())
        except Exception:
            # The library cannot write this file even from its own JSON:
            # compare the documents it reads instead (numbers as f32, since
            # it prints f32 values widened to doubles and we print them short).
            return same_document(quiet(lambda: AINB.from_json_text(ours).as_dict()), theirs)
        from_ours = quiet(lambda: AINB.from_json_text(ours).to_binary())
        return from_ours == from_theirs

    def theirs_read_by_codec(p):
        theirs = own_dict(p)
        if theirs is None:
            return None
        text = json.dumps(theirs, indent=2, ensure_ascii=False)
        binary = codec.from_text(text, ".json")
        back = quiet(lambda: AINB.from_binary(binary).as_dict())
        return json.loads(json.dumps(back)) == json.loads(text)

    # The library's JSON as recorded in the corpus (written by its v2 at a
    # pinned commit), not made here: text the project has never produced.
    golden = sorted((corpus / "ainb" / "golden" / "dt-AINB-v2_bc54e53").glob("*.json"))

    def golden_read_by_codec(p):
        text = p.read_text(encoding="utf-8")
        binary = codec.from_text(text, ".json")
        back = quiet(lambda: AINB.from_binary(binary).as_dict())
        return json.loads(json.dumps(back)) == json.loads(text)

    t = Tally()
    t.add(check("ainb reads codec's AINB JSON (same bytes as from its own JSON)", files, ours_read_by_ainb))
    t.add(check("codec reads ainb's JSON (ainb reads the result as the same JSON)", files, theirs_read_by_codec))
    t.add(check("codec reads the corpus's recorded ainb JSON (ainb reads the result as that JSON)", golden, golden_read_by_codec))
    return t


def aamp_checks(codec, corpus):
    import oead

    files = sorted(p for p in (corpus / "aamp").iterdir() if p.is_file() and p.read_bytes()[:4] == b"AAMP")

    def ours_read_by_oead(p):
        want = oead.aamp.ParameterIO.from_binary(p.read_bytes()).to_binary()
        ours = codec.to_text(p, ".yml")
        return bytes(oead.aamp.ParameterIO.from_text(ours).to_binary()) == bytes(want)

    def theirs_read_by_codec(p):
        theirs = oead.aamp.ParameterIO.from_binary(p.read_bytes()).to_text()
        binary = codec.from_text(theirs, ".yml")
        return oead.aamp.ParameterIO.from_binary(binary).to_text() == theirs

    t = Tally()
    t.add(check("oead reads codec's AAMP YAML (same bytes as from the binary)", files, ours_read_by_oead))
    t.add(check("codec reads oead's AAMP YAML (oead reads the result as the same YAML)", files, theirs_read_by_codec))
    return t


def byml_checks(codec, corpus):
    import oead

    files = sorted(p for p in (corpus / "byml").iterdir() if p.is_file() and p.read_bytes()[:2] in (b"YB", b"BY"))

    def layout(data):
        big = data[:2] == b"BY"
        return big, struct.unpack(">H" if big else "<H", data[2:4])[0]

    def peer_doc(data):
        """oead's document of a binary, or None where oead cannot read it
        (oead 1.3.0 reads versions 2 and 3 only)."""
        try:
            return quiet(oead.byml.from_binary, data)
        except Exception:
            return None

    def ours_read_by_oead(p):
        data = p.read_bytes()
        doc = peer_doc(data)
        if doc is None:
            return None
        big, version = layout(data)
        want = bytes(oead.byml.to_binary(doc, big_endian=big, version=version))
        ours = codec.to_text(p, ".yml")
        got = bytes(oead.byml.to_binary(oead.byml.from_text(ours), big_endian=big, version=version))
        return got == want

    def theirs_read_by_codec(p):
        data = p.read_bytes()
        doc = peer_doc(data)
        if doc is None:
            return None
        big, version = layout(data)
        theirs = oead.byml.to_text(doc)
        binary = codec.from_text(theirs, ".yml", "--byml-version", version, "--endian", "big" if big else "little")
        return oead.byml.to_text(oead.byml.from_binary(binary)) == theirs

    def same_text_as_oead(p):
        """Where the file lists every hash in key order (oead writes it back
        identically), codec's text is oead's, apart from codec's first line."""
        data = p.read_bytes()
        doc = peer_doc(data)
        big, version = layout(data)
        if doc is None or bytes(oead.byml.to_binary(doc, big_endian=big, version=version)) != data:
            return None
        ours = codec.to_text(p, ".yml")
        return ours.split("\n", 1)[1] == oead.byml.to_text(doc)

    t = Tally()
    t.add(check("oead reads codec's BYML YAML (same bytes as from the binary)", files, ours_read_by_oead))
    t.add(check("codec reads oead's BYML YAML (oead reads the result as the same YAML)", files, theirs_read_by_codec))
    t.add(check("codec's BYML YAML is oead's text where the file is in key order", files, same_text_as_oead))
    return t


def arguments(doc):
    """The command line of a peer script: `--codec` and `--corpus`."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--codec", default=str(ROOT / "target" / "debug" / "codec"))
    ap.add_argument("--corpus", default=os.environ.get("CODEC_CORPUS", str(ROOT.parent / "shared" / "corpus")))
    return ap.parse_args()


def missing(args, folder=None):
    """What the checks need that is absent: the corpus (or one folder of
    it) and the codec binary."""
    problems = []
    corpus = Path(args.corpus) / (folder or "")
    if not corpus.is_dir():
        problems.append(f"the corpus is absent ({corpus})")
    if not Path(args.codec).is_file():
        problems.append(f"no codec binary at {args.codec} (cargo build -p formats --bin codec)")
    return problems


def finish(total, problems):
    """Prints what was skipped and the tally, and exits: 1 on a failure,
    or on anything skipped when CI=true."""
    for p in problems:
        print(f"SKIPPED: {p}")
    if problems and IN_CI:
        print("with CI=true a skipped peer check is a failure")
        total.failed += len(problems)
    print(f"{total.passed} passed, {total.failed} failed, {total.skipped} skipped")
    sys.exit(1 if total.failed else 0)


def main():
    args = arguments(__doc__)
    problems = missing(args)
    corpus = Path(args.corpus)
    peers = {}
    for mod, pin in (("ainb", "ainb==0.2.16"), ("oead", "oead==1.3.0")):
        try:
            peers[mod] = __import__(mod)
        except ImportError:
            problems.append(f"the peer library `{mod}` is missing (pip install -r tests/peers/requirements.txt: {pin})")

    total = Tally()
    with tempfile.TemporaryDirectory() as scratch:
        codec = Codec(args.codec, scratch)
        if corpus.is_dir() and Path(args.codec).is_file():
            if "ainb" in peers:
                total.add(ainb_checks(codec, corpus))
            if "oead" in peers:
                total.add(aamp_checks(codec, corpus))
                total.add(byml_checks(codec, corpus))
    finish(total, problems)


if __name__ == "__main__":
    main()
