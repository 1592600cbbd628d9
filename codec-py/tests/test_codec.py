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
        assert doc["schema"] and doc["layers"] is not None, p
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


def test_an_edited_message_reads_back_edited():
    data = (CORPUS / "msbt" / "totk" / "ActorMsg" / "Boss.msbt").read_bytes()
    doc = codec.read(data)
    assert doc["schema"] == "msbt" and doc["settings"] == {}
    assert codec.write(doc) == data
    first = next(iter(doc["messages"]))
    doc["messages"][first] = "A new name"
    doc["messages"]["New_Label"] = "<3 Type='0' Data='0x0B00'/>Hi"
    back = codec.read(codec.write(doc))["messages"]
    assert back[first] == "A new name"
    assert back["New_Label"] == "<3 Type='0' Data='0x0B00'/>Hi"
    assert list(back)[-1] == "New_Label"
    # A translator's typo in a tag is an error naming the label and where.
    doc["messages"][first] = "<3 Type='0' Data='0x0C00'>"
    with pytest.raises(codec.CodecError) as e:
        codec.write(doc)
    assert f"`{first}`" in str(e.value) and "character 1" in str(e.value), str(e.value)


def plain_oead(x, oead):
    """An oead BYML value as plain Python values, its number classes kept
    by name."""
    if isinstance(x, oead.byml.Hash):
        return {k: plain_oead(v, oead) for k, v in x.items()}
    if isinstance(x, oead.byml.Array):
        return [plain_oead(v, oead) for v in x]
    for name in ("U32", "S64", "U64", "F64"):
        if isinstance(x, getattr(oead, name)):
            return (name, x.v)
    if isinstance(x, (oead.S32, oead.F32)):
        return x.v
    return x


def plain_ours(x):
    if isinstance(x, dict):
        return {k: plain_ours(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain_ours(v) for v in x]
    for name in ("U32", "S64", "U64", "F64"):
        if type(x) is getattr(codec, name):
            return (name, (int if name != "F64" else float)(x))
    return x


def test_documents_agree_with_oead():
    oead = pytest.importorskip("oead")
    # SARC: the same members with the same bytes.
    for p in sorted((CORPUS / "sarc").glob("*.sarc")):
        data = p.read_bytes()
        ours = codec.read(data)["files"]
        theirs = {f.name: bytes(f.data) for f in oead.Sarc(data).get_files()}
        assert ours == theirs, p
    # BYML: the same tree, number classes and all, on every file oead reads.
    compared = 0
    for p in sorted((CORPUS / "byml").glob("*.byml")):
        data = p.read_bytes()
        try:
            theirs = oead.byml.from_binary(data)
        except Exception:
            continue
        assert plain_ours(codec.read(data)["document"]) == plain_oead(theirs, oead), p
        compared += 1
    assert compared >= 4, compared
    # AAMP: every parameter's value by its name hash.
    compared = 0
    for p in sorted((CORPUS / "aamp").glob("*.b*")):
        data = p.read_bytes()
        try:
            theirs = oead.aamp.ParameterIO.from_binary(data)
        except Exception:
            continue
        ours = codec.read(data)
        hashed = lambda k: k if isinstance(k, int) else __import__("zlib").crc32(k.encode())

        def same(o, t):
            assert {hashed(k) for k in o["objects"]} == {n.hash for n in t.objects.keys()}
            for k, obj in o["objects"].items():
                tobj = t.objects[oead.aamp.Name(hashed(k))]
                for pk, v in obj.items():
                    tv = tobj.params[oead.aamp.Name(hashed(pk))].v
                    fields = {codec.Vec2: "xy", codec.Vec3: "xyz", codec.Vec4: "xyzt",
                              codec.Color: "rgba", codec.Quat: "abcd"}.get(type(v))
                    if fields:
                        assert v == [getattr(tv, a) for a in fields], (p, pk)
                    elif isinstance(v, (codec.Str32, codec.Str64, codec.Str256, str)):
                        assert v == str(tv), (p, pk)
                    elif isinstance(v, (bool, int, float)):
                        assert v == (tv.v if hasattr(tv, "v") else tv), (p, pk)
            for k, lst in o["lists"].items():
                same(lst, t.lists[oead.aamp.Name(hashed(k))])

        same(ours["param_root"], theirs)
        compared += 1
    assert compared >= 100, compared


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
    assert schema.check(data, edits=False) == {"identical": True, "variant": "Le", "first_difference": None}
    # The edit probe: every edit it tries on MSBT comes back as made.
    probe = schema.check(data)["edits"]
    assert probe["held"] >= 5 and probe["tried"] >= probe["held"], probe
    assert probe["failed"] == []
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
    belt = codec.read(pack["files"][name])
    belt["document"]["DragForceStrong"] = 2.5
    pack["files"][name] = codec.write(belt)
    out = codec.write(pack, dicts=dicts)

    before = codec.read(src, dicts=dicts)["files"]
    after = codec.read(out, dicts=dicts)["files"]
    assert before.keys() == after.keys()
    assert [k for k in before if before[k] != after[k]] == [name]
    belt = codec.read(after[name])["document"]
    assert belt["DragForceStrong"] == 2.5
    assert belt["DragForce"] == 0.0 and type(belt["DragForce"]) is float


def test_byml_values_keep_their_types():
    data = (CORPUS / "byml" / "A-1_Dynamic.byml").read_bytes()
    doc = codec.read(data)
    assert doc["version"] == 2 and doc["variant"] == "Le"
    first = doc["document"]["Objs"][0]
    assert type(first["HashId"]) is codec.U32 and first["HashId"] == 11472148
    assert type(first["SRTHash"]) is int
    # Each class writes its node: the same value as a plain int is an Int.
    first["HashId"] = int(first["HashId"])
    changed = codec.read(codec.write(doc))["document"]["Objs"][0]
    assert type(changed["HashId"]) is int
    doc = {"schema": "byml", "version": 7, "document": {
        "u": codec.U32(7), "l": codec.S64(-1 << 40), "ul": codec.U64(1 << 63), "d": codec.F64(0.1),
        "f": 0.5, "s": "x", "b": b"\x00\x01", "n": None, "file": codec.File(b"abc", alignment=0x80),
        "h": codec.HashMap({0xDEADBEEF: True}), "t": (1, 2)}}
    back = codec.read(codec.write(doc))
    assert back["version"] == 7
    got = back["document"]
    assert [type(got[k]).__name__ for k in ("u", "l", "ul", "d", "f", "s", "b", "n", "h", "t")] == [
        "U32", "S64", "U64", "F64", "float", "str", "bytes", "NoneType", "HashMap", "list"]
    assert got["d"] == 0.1 and got["ul"] == 1 << 63 and got["h"] == {0xDEADBEEF: True}
    assert got["file"] == b"abc" and got["file"].alignment == 0x80


def test_a_value_that_does_not_fit_names_its_path():
    doc = codec.read((CORPUS / "byml" / "A-1_Dynamic.byml").read_bytes())
    doc["document"]["Objs"][3]["Translate"][1] = object()
    with pytest.raises(codec.CodecError) as e:
        codec.write(doc)
    assert e.value.path == "document.Objs[3].Translate[1]", e.value.path
    assert "has no BYML node" in str(e.value)
    doc["document"]["Objs"][3]["Translate"][1] = 1 << 40
    with pytest.raises(codec.CodecError) as e:
        codec.write(doc)
    assert "codec.S64" in str(e.value)
    # A list inside itself ends at the depth a file may hold, not in a crash.
    loop = []
    loop.append(loop)
    with pytest.raises(codec.CodecError) as e:
        codec.write({"schema": "byml", "document": loop})
    assert "deeper" in str(e.value)
    aamp = codec.read((CORPUS / "aamp" / "AIProgram__AddAutoPlacementCreator.baiprog").read_bytes())
    aamp["param_root"]["objects"]["X"] = {"p": codec.Vec3([1.0, 2.0])}
    with pytest.raises(codec.CodecError) as e:
        codec.write(aamp)
    assert e.value.path == "param_root.objects.X.p" and "3 numbers" in str(e.value)


def test_aamp_names_and_values():
    data = (CORPUS / "aamp" / "AIProgram__AddAutoPlacementCreator.baiprog").read_bytes()
    doc = codec.read(data)
    assert doc["version"] == 0 and doc["type"] == "xml"
    assert codec.write(doc) == data
    # A name is hashed on writing: a parameter added by name reads back
    # under its hash (or its name, where the document's strings explain it).
    root = doc["param_root"]
    root["objects"]["Extra"] = {"Speed": 1.5, "Pos": codec.Vec3([1.0, 2.0, 3.0]), "Tag": codec.Str32("Tag")}
    back = codec.read(codec.write(doc))["param_root"]["objects"]
    import zlib
    extra = back.get("Extra", back.get(zlib.crc32(b"Extra")))
    values = sorted(extra.values(), key=repr)
    assert codec.Vec3([1.0, 2.0, 3.0]) in values and 1.5 in values
    assert any(type(v) is codec.Str32 for v in values)
    # Two keys of one hash (a name and its hash) are two parameters on
    # writing; reading them into one dict is refused, not one of them lost.
    root["objects"]["Extra"] = {"A": 1, zlib.crc32(b"A"): 2}
    with pytest.raises(codec.CodecError) as e:
        codec.read(codec.write(doc))
    assert "two children of one name" in str(e.value)


def test_sarc_members_added_and_changed():
    data = sorted((CORPUS / "sarc").glob("*.sarc"))[0].read_bytes()
    doc = codec.read(data)
    assert codec.write(doc) == data
    first = next(iter(doc["files"]))
    doc["files"]["New/Added.bxml"] = b"AAMP new member"
    doc["files"][first] = doc["files"][first] + b"!"
    back = codec.read(codec.write(doc))
    assert back["files"]["New/Added.bxml"] == b"AAMP new member"
    assert back["files"][first].endswith(b"!")
    # The new member takes the alignment its siblings of the same kind show.
    siblings = {a for n, a in doc["alignments"].items() if n.endswith(".bxml")}
    assert back["alignments"]["New/Added.bxml"] == min(siblings)
    del doc["files"][first]
    assert first not in codec.read(codec.write(doc))["files"]


def test_yaz0_both_ways():
    data = sorted((CORPUS / "sarc").glob("*.sarc"))[0].read_bytes()
    packed = codec.compress(data, [{"kind": "yaz0", "alignment": 0}])
    assert packed[:4] == b"Yaz0" and len(packed) < len(data)
    assert codec.decompress(packed) == data
    oead = pytest.importorskip("oead")
    assert bytes(oead.yaz0.decompress(packed)) == data
    assert codec.decompress(bytes(oead.yaz0.compress(data))) == data


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


def test_the_stubs_list_what_the_module_has():
    """codec.pyi, which editors complete from, names every public function
    and class of the module and nothing else."""
    import ast

    tree = ast.parse((ROOT / "codec-py" / "codec.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n in dir(codec) if not n.startswith("_") and callable(getattr(codec, n))}
    assert stubbed == public, (stubbed - public, public - stubbed)


def test_sarc_members_as_views_of_one_buffer():
    """`read(copy=False)`: the members are memoryviews of the file's bytes,
    equal to the copies, and such a document writes back the same archive;
    a member replaced by bytes is written as those bytes."""
    data = (CORPUS / "yaz0" / "Demo344_1.sbeventpack").read_bytes()
    copied = codec.read(data)
    viewed = codec.read(data, copy=False)
    assert viewed["layers"] == copied["layers"] and viewed["layers"][0]["kind"] == "yaz0"
    assert all(type(v) is memoryview for v in viewed["files"].values())
    assert {k: bytes(v) for k, v in viewed["files"].items()} == copied["files"]
    assert codec.decompress(codec.write(viewed)) == codec.decompress(data)
    first = next(iter(viewed["files"]))
    viewed["files"][first] = b"changed"
    assert codec.read(codec.write(viewed))["files"][first] == b"changed"


def test_aamp_names_added_name_the_keys():
    """A name added to the module's table names its hash in every read
    after, and writes back to the same bytes; a name the file does not
    hold changes nothing."""
    data = (CORPUS / "aamp" / "AIProgram__AddAutoPlacementCreator.baiprog").read_bytes()
    before = codec.read(data)["param_root"]["lists"]
    assert 2814088591 in before and 1080068516 in before, list(before)
    assert codec.add_aamp_names(["AI", "Action", "not a name of this file"]) == 3
    assert codec.add_aamp_names(["AI"]) == 0
    doc = codec.read(data)
    after = doc["param_root"]["lists"]
    assert "AI" in after and "Action" in after and 2814088591 not in after, list(after)
    assert codec.write(doc) == data
    with pytest.raises(TypeError):
        codec.add_aamp_names([3])
