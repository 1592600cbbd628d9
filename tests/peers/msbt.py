#!/usr/bin/env python3
"""pymsbt judges codec's MSBT text (the editors' form), on every corpus file.

- ours read by the peer: the entries of `codec to-text` (read with PyYAML)
  are, label for label and in message order, pymsbt's reading of the binary
  with its text and tags written as the editors write them
  (`<3 Type='0' Data='0x0B00'/>`);
- theirs read by codec: a text made of pymsbt's reading and written by
  PyYAML (plain or quoted scalars, as a YAML library chooses) gives back the
  file's bytes through `codec from-text`.

pymsbt 1.0.2 (GPL-3.0) declares Python 3.12 or later (see `load_pymsbt`
for an older one); it reads little-endian UTF-16 files only, so the others
are skipped. `.ci/run` installs the pinned packages in a virtual
environment of a Python 3.12 when the machine has one:

    python3.12 -m pip install -r tests/peers/requirements-msbt.txt
    python3.12 tests/peers/msbt.py [--codec target/debug/codec] [--corpus DIR]

Ends with `N passed, N failed, N skipped`; with CI=true a missing library
is a failure.
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import Codec, Tally, arguments, check, finish, missing, quiet  # noqa: E402

DEFAULT_PADDING = 0xAB


def load_pymsbt():
    """pymsbt's reader class. pymsbt 1.0.2 declares Python 3.12 for one
    thing: an f-string in `TextComponent.__str__` with a backslash inside
    its braces. On an older Python (`pip install --ignore-requires-python`)
    that one expression is rewritten as the same call outside the f-string
    before the module is compiled; nothing the checks use goes through it."""
    try:
        from pymsbt.msbt import MSBTFile
        return MSBTFile
    except SyntaxError:
        import importlib.util

        spec = importlib.util.find_spec("pymsbt.classes")
        source = Path(spec.origin).read_text(encoding="utf-8")
        old = "{str(self.data).replace('\\n', '\\\\n')}"
        if old not in source:
            raise
        source = source.replace(old, "{_newlines_shown(self.data)}")
        source += "\n\ndef _newlines_shown(data):\n    return str(data).replace('\\n', '\\\\n')\n"
        module = importlib.util.module_from_spec(spec)
        exec(compile(source, spec.origin, "exec"), module.__dict__)
        sys.modules["pymsbt.classes"] = module
        print(f"note: pymsbt compiled for Python {sys.version.split()[0]} with its one 3.12 f-string rewritten")
        from pymsbt.msbt import MSBTFile
        return MSBTFile


def slot_rule(labels):
    """TotK's slot count: the smallest prime p with 2p > labels, at most 101."""
    for p in range(2, 101):
        if all(p % d for d in range(2, int(p**0.5) + 1)) and 2 * p > labels:
            return p
    return 101


def is_le_utf16(data):
    return data[:8] == b"MsgStdBn" and data[8:10] == b"\xff\xfe" and data[12] == 1


def editor_text(components):
    """pymsbt's components of a message, written as the editors write them."""
    out = []
    for c in components:
        if c.type == "text":
            # pymsbt makes one character of each UTF-16 unit: join pairs.
            out.append(c.data.encode("utf-16-le", "surrogatepass").decode("utf-16-le"))
        else:
            cmd = c.data
            tag = f"<{cmd.group} Type='{cmd.type}'"
            if cmd.data:
                tag += f" Data='0x{cmd.data[2:].upper()}'"
            out.append(tag + "/>")
    return "".join(out)


def in_message_order(m):
    labels = sorted(m.LBL1.labels, key=lambda l: l.string_index)
    return {l.data: editor_text(m.TXT2.texts[l.string_index]) for l in labels}


def msbt_checks(codec, corpus, MSBTFile, yaml):
    files = sorted((corpus / "msbt").rglob("*.msbt"))

    def ours_read_by_pymsbt(p):
        if not is_le_utf16(p.read_bytes()):
            return None
        text = codec.to_text(p, ".msbt.yml")
        ours = yaml.safe_load(text)
        ours.pop("$msbt", None)
        theirs = in_message_order(quiet(MSBTFile, str(p)))
        return list(ours.items()) == list(theirs.items())

    def theirs_read_by_codec(p):
        data = p.read_bytes()
        if not is_le_utf16(data):
            return None
        m = quiet(MSBTFile, str(p))
        blocks = [s.signature for s in m.sections]
        if any(b not in ("LBL1", "ATR1", "TXT2") for b in blocks):
            return None  # pymsbt keeps other blocks only as raw bytes
        doc = {}
        settings = {}
        if blocks != ["LBL1", "TXT2"]:
            settings["blocks"] = blocks
        if m.LBL1.offset_count != slot_rule(len(m.LBL1.labels)):
            settings["slots"] = m.LBL1.offset_count
        # The padding byte after the first block, where it has one.
        size = int.from_bytes(data[0x24:0x28], "little")
        if size % 16:
            pad = data[0x30 + size]
            if pad != DEFAULT_PADDING:
                settings["padding"] = pad
        if settings:
            doc["$msbt"] = settings
        doc.update(in_message_order(m))
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1 << 30)
        return codec.from_text(text, ".msbt.yml") == data

    t = Tally()
    t.add(check("msbt: codec's text read by pymsbt", files, ours_read_by_pymsbt))
    t.add(check("msbt: pymsbt's reading, written by PyYAML, read by codec", files, theirs_read_by_codec))
    return t


def main():
    args = arguments(__doc__)
    problems = missing(args, "msbt")
    try:
        MSBTFile = load_pymsbt()
        import yaml
    except (ImportError, SyntaxError) as e:
        problems.append(
            f"pymsbt or PyYAML is missing (pip install --ignore-requires-python -r "
            f"tests/peers/requirements-msbt.txt): {e}"
        )
    total = Tally()
    if not problems:
        with tempfile.TemporaryDirectory() as scratch:
            total.add(msbt_checks(Codec(args.codec, scratch), Path(args.corpus), MSBTFile, yaml))
    finish(total, problems)


if __name__ == "__main__":
    main()
