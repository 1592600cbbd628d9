#!/usr/bin/env python3
"""The Python stack a tool would use for the job `codec check` does on MSBT
files, for timing the two side by side (whole processes, `farm-bench`):
every file parsed and written back by pymsbt, and for a message archive
first the zstd frame opened with the game's dictionary (`zstandard`) and
the SARC read (`oead.Sarc`).

    python msbt_stack.py folder DIR
    python msbt_stack.py archive FILE.sarc.zs ZsDic.pack.zs

pymsbt reads and writes paths only, so each member goes through a file in
a temporary folder. Prints how many files were parsed, written and failed.
"""

import contextlib
import io
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "peers"))


def main():
    from msbt import load_pymsbt  # tests/peers/msbt.py

    with contextlib.redirect_stdout(io.StringIO()):
        MSBTFile = load_pymsbt()
        from pymsbt.msbt_write import MSBTWriter
    tmp = Path(tempfile.mkdtemp())
    out = tmp / "out.msbt"

    def members():
        if sys.argv[1] == "folder":
            for p in sorted(Path(sys.argv[2]).rglob("*.msbt")):
                yield str(p)
            return
        import oead
        import zstandard

        packed = Path(sys.argv[3]).read_bytes()
        dicts = {}
        for f in oead.Sarc(zstandard.ZstdDecompressor().decompress(packed)).get_files():
            d = zstandard.ZstdCompressionDict(bytes(f.data))
            dicts[d.dict_id()] = d
        frame = Path(sys.argv[2]).read_bytes()
        params = zstandard.get_frame_parameters(frame)
        inner = zstandard.ZstdDecompressor(dict_data=dicts[params.dict_id]).decompress(frame)
        member = tmp / "member.msbt"
        for f in oead.Sarc(inner).get_files():
            member.write_bytes(bytes(f.data))
            yield str(member)

    parsed = written = failed = 0
    with contextlib.redirect_stdout(io.StringIO()):
        for path in members():
            try:
                m = MSBTFile(path)
                parsed += 1
                MSBTWriter(m, str(out)).stream.close()
                written += 1
            except Exception:
                failed += 1
    print(f"{parsed} parsed, {written} written, {failed} failed")


if __name__ == "__main__":
    main()
