#!/usr/bin/env python3
"""msyt judges codec's reading of msyt's YAML (BotW's MSBT text), on every
corpus file msyt exports.

- peer's bytes: for each file, `msyt export` writes its YAML; `msyt create`
  and `codec from-text` each write an MSBT from that YAML, and the two are
  the same bytes (files with ATR1 or other optional blocks: msyt's builder
  appends them after TXT2, Nintendo's order has them before it, so those
  are judged by the next check alone);
- the original's bytes: the same YAML with its entries listed in the file's
  message order (msyt's export sorts them by label) and written again by
  PyYAML gives back the original file through `codec from-text`.

msyt 1.1.0 (lojewalo/msyt, MIT) is a Rust program that is on neither
crates.io nor PyPI, with its msbt-rs library on GitHub only; where it is
not installed this script says so and exits 0, also in CI (the registries
the CI machine reaches do not have it). Built here from source:

    MSYT=/path/to/msyt python3 tests/peers/msyt.py [--codec ...] [--corpus ...]

Ends with `N passed, N failed, N skipped`.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import Tally, arguments, check, finish, missing  # noqa: E402

OPTIONAL_BLOCKS = ("atr1_unknown:", "ato1:", "tsy1:", "nli1:")


def message_order(data):
    """The labels of an MSBT in message order, read from LBL1 (little or
    big endian): the slot table, then (length, name, message index)."""
    big = data[8:10] == b"\xfe\xff"
    order = "big" if big else "little"
    u32 = lambda at: int.from_bytes(data[at:at + 4], order)  # noqa: E731
    at = 0x20
    while data[at:at + 4] != b"LBL1":
        at += 16 + u32(at + 4)
        at += -at % 16
    base = at + 16
    slots = u32(base)
    labels = []
    for s in range(slots):
        count, offset = u32(base + 4 + 8 * s), u32(base + 8 + 8 * s)
        p = base + offset
        for _ in range(count):
            n = data[p]
            labels.append((u32(p + 1 + n), data[p + 1:p + 1 + n].decode("ascii")))
            p += 1 + n + 4
    return [name for _, name in sorted(labels)]


def msyt_checks(msyt, codec, corpus, yaml, scratch):
    files = sorted((corpus / "msbt").rglob("*.msbt"))
    exported = {}

    def export(p):
        """msyt's YAML of a file, or None where msyt cannot export it."""
        if p not in exported:
            d = Path(tempfile.mkdtemp(dir=scratch))
            (d / "in").mkdir()
            shutil.copy(p, d / "in" / p.name)
            r = subprocess.run([msyt, "export", "-d", "-o", d / "out", d / "in"], capture_output=True, text=True)
            y = d / "out" / (p.stem + ".msyt")
            exported[p] = (d, y.read_text(encoding="utf-8")) if r.returncode == 0 and y.is_file() else None
        return exported[p]

    def variant(data):
        """The platform msyt creates for, and codec's flag for it; None for
        the UTF-8 files (msyt's export reads their text as UTF-16 pairs)."""
        if data[12] != 1:
            return None
        return ("wiiu", ["--endian", "big"]) if data[8:10] == b"\xfe\xff" else ("switch", [])

    def same_bytes_as_msyt_create(p):
        data = p.read_bytes()
        got = export(p)
        if got is None or variant(data) is None:
            return None
        d, text = got
        if any(line.startswith(OPTIONAL_BLOCKS) for line in text.splitlines()):
            return None
        platform, flags = variant(data)
        r = subprocess.run([msyt, "create", "-d", "-B", "-p", platform, "-o", d / "created", d / "out"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"msyt create: {r.stderr.strip()[:300]}")
        theirs = (d / "created" / (p.stem + ".msbt")).read_bytes()
        ours = codec.from_text(text, ".msyt", *flags)
        return ours == theirs

    def in_message_order_gives_the_original(p):
        data = p.read_bytes()
        got = export(p)
        if got is None or variant(data) is None:
            return None
        doc = yaml.safe_load(got[1])
        doc["entries"] = {label: doc["entries"][label] for label in message_order(data)}
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1 << 30)
        return codec.from_text(text, ".msyt", *variant(data)[1]) == data

    t = Tally()
    t.add(check("msyt: codec reads msyt's export as msyt's create does (same bytes)",
                files, same_bytes_as_msyt_create, {}))
    t.add(check("msyt: msyt's export in message order gives back the original file",
                files, in_message_order_gives_the_original, {}))
    return t


def main():
    args = arguments(__doc__)
    msyt = os.environ.get("MSYT") or shutil.which("msyt")
    if not msyt:
        print("SKIPPED: msyt is not installed (set MSYT to its binary; it is on neither crates.io "
              "nor PyPI, so CI cannot install it)")
        print("0 passed, 0 failed, 0 skipped")
        return
    problems = missing(args, "msbt")
    try:
        import yaml
    except ImportError as e:
        problems.append(f"PyYAML is missing (pip install -r tests/peers/requirements-msbt.txt): {e}")
    total = Tally()
    if not problems:
        from check import Codec
        with tempfile.TemporaryDirectory() as scratch:
            total.add(msyt_checks(msyt, Codec(args.codec, scratch), Path(args.corpus), yaml, scratch))
    finish(total, problems)


if __name__ == "__main__":
    main()
