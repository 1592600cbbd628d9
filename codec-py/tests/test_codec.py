"""`import codec` on the real files of the corpus (../shared/corpus or
$CODEC_CORPUS): every file of a known format read and written back byte for
byte (inside its layers), documents compared with oead's where oead reads
the file, errors raised with their offset and path, any schema read and
written through `codec.Schema`."""

import os
from pathlib import Path

import pytest

import codec

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("CODEC_CORPUS") or ROOT.parent / "shared" / "corpus")
DICT = CORPUS / "zstd" / "ZsDic.pack.zs"


def corpus_files():
    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS}")
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv")


def test_every_corpus_file_comes_back_byte_for_byte():
    dicts = [str(DICT)]
    read = identical = 0
    differ = []
    for p in corpus_files():
        data = p.read_bytes()
        try:
            found = codec.detect(data, dicts)
        except codec.CodecError:
            continue
        if found is None:
            continue
        doc = codec.read(data, dicts=dicts)
        read += 1
        assert doc["schema"] and "document" in doc, p
        back = codec.write(doc, dicts=dicts)
        # Inside the layers: the compressed bytes depend on the level.
        if codec.decompress(back, dicts) == codec.decompress(data, dicts):
            identical += 1
        else:
            differ.append(p)
    assert read >= 450, read
    # The legacy BDAT files another writer laid out (or with bytes the
    # schema does not read) are the only ones that come back otherwise,
    # as `codec check` says of them.
    assert all(p.parent.name == "bdat" for p in differ), differ
    assert len(differ) <= 4, differ
    print(f"{read} read, {identical} identical")


def test_a_layered_file_keeps_its_layers():
    data = (CORPUS / "zstd" / "Armor_006_Upper.pack.zs").read_bytes()
    doc = codec.read(data, dicts=[DICT.read_bytes()])
    assert doc["schema"] == "sarc"
    assert doc["layers"] == [{"kind": "zstd", "dictionary": 3}]
    back = codec.write(doc, dicts=[str(DICT)])
    assert back[:4] == b"\x28\xb5\x2f\xfd"
    assert codec.decompress(back, [str(DICT)]) == codec.decompress(data, [str(DICT)])


def test_an_edited_value_reads_back_edited():
    data = (CORPUS / "msbt" / "totk" / "ActorMsg" / "Boss.msbt").read_bytes()
    doc = codec.read(data)
    assert doc["schema"] == "msbt" and doc["variant"] == "Le"
    blocks = doc["document"]["blocks"]
    texts = next(b["Texts"] for b in blocks if "Texts" in b)
    texts["data"]["messages"][0] = ["A new name"]
    back = codec.read(codec.write(doc))
    texts = next(b["Texts"] for b in back["document"]["blocks"] if "Texts" in b)
    assert texts["data"]["messages"][0] == ["A new name"]


def test_documents_agree_with_oead():
    oead = pytest.importorskip("oead")
    for p in sorted((CORPUS / "sarc").glob("*.sarc")):
        data = p.read_bytes()
        ours = codec.read(data)["document"]
        names = [n["name"] for n in ours["nodes"]]
        theirs = oead.Sarc(data)
        assert sorted(names) == sorted(f.name for f in theirs.get_files()), p
        for f in theirs.get_files():
            node = next(n for n in ours["nodes"] if n["name"] == f.name)
            assert bytes.fromhex(node["data"]["value"]) == bytes(f.data), (p, f.name)


def test_errors_carry_the_offset_and_the_path():
    data = (CORPUS / "msbt" / "totk" / "ActorMsg" / "Boss.msbt").read_bytes()
    with pytest.raises(codec.CodecError) as e:
        codec.read(data[:200])
    assert e.value.offset == 0x24
    assert e.value.path == "Msbt.blocks[0]::Labels.data"
    assert "the size field says" in str(e.value)
    with pytest.raises(codec.CodecError) as e:
        codec.read(b"not a known file")
    assert e.value.offset == 0
    with pytest.raises(codec.CodecError):
        codec.read(data, format="nonesuch")


def test_any_schema_reads_checks_dumps_and_writes():
    schema = codec.Schema(str(ROOT / "schemas" / "msbt.ron"))
    assert schema.name == "msbt" and "Le" in schema.variants
    data = (CORPUS / "msbt" / "totk" / "ActorMsg" / "Boss.msbt").read_bytes()
    doc = schema.read(data)
    assert doc["variant"] == "Le"
    assert schema.write(doc) == data
    assert schema.check(data) == {"identical": True, "variant": "Le", "first_difference": None}
    assert "Msbt" in schema.dump(data)
    text = 'Schema(name: "pair", endian: Little, root: "P", types: [Struct(name: "P", fields: [(name: "a", type: U16), (name: "b", type: U8)])])'
    pair = codec.Schema(text)
    assert pair.read(b"\x01\x02\x03")["document"] == {"a": 0x201, "b": 3}
    assert pair.write({"schema": "pair", "document": {"a": 5, "b": 6}}) == b"\x05\x00\x06"
    with pytest.raises(codec.CodecError) as e:
        pair.read(b"\x01")
    assert e.value.offset is not None
    with pytest.raises(codec.CodecError):
        codec.Schema('Schema(name: "bad", root: "Missing", types: [])')


def test_a_modders_job_one_value_in_an_actor_pack():
    """The README's example: a TotK actor pack (zstd with the game's
    dictionary), one value changed in a BYML member, the pack written back;
    every other member keeps its bytes."""
    src = (CORPUS / "zstd" / "Armor_006_Upper.pack.zs").read_bytes()
    dicts = [str(DICT)]
    name = "Phive/ClothReaction/Belt.phive__ClothReaction.bgyml"

    pack = codec.read(src, dicts=dicts)
    node = next(n for n in pack["document"]["nodes"] if n["name"] == name)
    belt = codec.read(bytes.fromhex(node["data"]["value"]))
    entry = next(e for e in belt["document"]["root"]["Hash"]["entries"] if e["key"] == "DragForceStrong")
    entry["value"] = {"Float": 2.5}
    node["data"]["value"] = codec.write(belt).hex()
    out = codec.write(pack, dicts=dicts)

    again = codec.read(out, dicts=dicts)
    before = {n["name"]: n["data"]["value"] for n in codec.read(src, dicts=dicts)["document"]["nodes"]}
    after = {n["name"]: n["data"]["value"] for n in again["document"]["nodes"]}
    assert before.keys() == after.keys()
    assert [k for k in before if before[k] != after[k]] == [name]
    belt = codec.read(bytes.fromhex(after[name]))
    entries = {e["key"]: e["value"] for e in belt["document"]["root"]["Hash"]["entries"]}
    assert entries["DragForceStrong"] == {"Float": 2.5}
    assert entries["DragForce"] == {"Float": 0}


def test_text_forms_go_both_ways():
    seen = set()
    for sub, pattern in [("aamp", "*.baiprog"), ("byml", "*.byml"), ("ainb", "*.ainb"), ("msbt", "totk/*/*.msbt")]:
        for p in sorted((CORPUS / sub).glob(pattern))[:3]:
            data = p.read_bytes()
            form, text = codec.to_text(data)
            seen.add(form)
            assert codec.from_text(text, form) == data, p
    assert {"aamp-yaml", "byml-yaml", "ainb-json", "msbt-yaml"} <= seen, seen
    form, text = codec.to_text((CORPUS / "msbt" / "totk" / "ActorMsg" / "Boss.msbt").read_bytes())
    assert form == "msbt-yaml" and "Phantom Ganon" in text
    with pytest.raises(codec.CodecError) as e:
        codec.from_text("a: [1, 2\n", "byml-yaml")
    assert ":" in str(e.value)
