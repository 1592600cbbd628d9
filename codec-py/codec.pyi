"""Nintendo file formats (AAMP, AINB, legacy BDAT, BYML, MSBT, RSTB, SARC;
Yaz0 and zstd layers) and any RON schema, read and written byte for byte.

`read` gives a dict of `schema` (the format), `layers` (the Yaz0 and zstd
layers around the file, outermost first) and the document, in the shape of
the format's text form: BYML's root as dicts and lists under `document`;
AAMP's `version`, `type` and `param_root`; a SARC's `files` and
`alignments`; MSBT's `messages` (label to text, tags inline) and
`settings`; AINB's JSON object under `document`. BDAT and RSTB, and
`Schema.read`, give the generic form of `docs/generic-text.md` (`variant`
and `document`, records as dicts in field order). Values whose binary type
a plain int, float, str or list would lose take the classes below."""

from os import PathLike
from typing import Any, Iterable, Optional, Sequence, Union

Dictionary = Union[bytes, str, PathLike]
Document = dict[str, Any]
Layer = dict[str, Any]
"""`{"kind": "yaz0", "alignment": int}` or `{"kind": "zstd", "dictionary": Optional[int]}`."""

class U32(int):
    """An unsigned 32-bit integer (BYML and AAMP `!u`)."""
class S64(int):
    """A signed 64-bit integer (BYML `!l`)."""
class U64(int):
    """An unsigned 64-bit integer (BYML `!ul`)."""
class F64(float):
    """A 64-bit float (BYML `!f64`); a plain float is 32 bits."""
class File(bytes):
    """Bytes placed at a multiple of `alignment` (BYML `!!file`)."""
    alignment: int
    def __new__(cls, data: bytes = b"", alignment: int = 0x1000) -> "File": ...
class HashMap(dict[int, Any]):
    """A BYML version 7 map keyed by 32-bit hashes (`!h`)."""
class Str32(str):
    """An AAMP string in a 32-byte field (`!str32`)."""
class Str64(str):
    """An AAMP string in a 64-byte field (`!str64`)."""
class Str256(str):
    """An AAMP string in a 256-byte field (`!str256`)."""
class Vec2(list[float]):
    """Two AAMP floats (`!vec2`)."""
class Vec3(list[float]):
    """Three AAMP floats (`!vec3`)."""
class Vec4(list[float]):
    """Four AAMP floats (`!vec4`)."""
class Color(list[float]):
    """An AAMP colour, four floats (`!color`)."""
class Quat(list[float]):
    """An AAMP quaternion, four floats (`!quat`)."""
class Curve(list[Union[int, float]]):
    """One to four AAMP curves, flat: per curve two ints and 30 floats."""
class BufferInt(list[int]):
    """An AAMP buffer of s32 (`!buffer_int`)."""
class BufferF32(list[float]):
    """An AAMP buffer of f32 (`!buffer_f32`)."""
class BufferU32(list[int]):
    """An AAMP buffer of u32 (`!buffer_u32`)."""
class BufferBinary(list[int]):
    """An AAMP buffer of bytes, as ints (`!buffer_binary`)."""

class CodecError(Exception):
    """A file or document that does not read or write."""

    offset: Optional[int]
    """The byte offset where the file departs from its format."""
    path: Optional[str]
    """The field path (`Msbt.blocks[0]::Labels.data`)."""

def formats() -> list[str]:
    """The names of the built-in formats."""

def detect(data: bytes, dicts: Optional[Sequence[Dictionary]] = None) -> Optional[tuple[str, Optional[str]]]:
    """The format and variant of `data`, inside its layers; None for none."""

def decompress(data: bytes, dicts: Optional[Sequence[Dictionary]] = None) -> bytes:
    """The bytes inside `data`'s Yaz0 and zstd layers (`dicts`: the game's
    zstd dictionaries, raw or as `Pack/ZsDic.pack.zs`, by bytes or path)."""

def compress(data: bytes, layers: Sequence[Layer], dicts: Optional[Sequence[Dictionary]] = None) -> bytes:
    """`data` inside `layers` (outermost first, as `read` lists them)."""

def add_aamp_names(names: Iterable[str]) -> int:
    """Adds AAMP names to the table `read` names keys from (for the rest of
    the process; the first name of a hash stays): how many were new."""

def read(data: bytes, format: Optional[str] = None, dicts: Optional[Sequence[Dictionary]] = None,
         copy: bool = True) -> Document:
    """Reads a file of a built-in format (detected unless `format` names
    it), through its layers (see the module's doc for the shapes).
    `copy=False`: a SARC's members as memoryviews of one buffer, not a
    `bytes` each."""

def write(doc: Document, dicts: Optional[Sequence[Dictionary]] = None) -> bytes:
    """Writes a document as `read` gives it, laid out as the game's tools
    lay it out, in its `layers`; keys left out take the usual values, and a
    value that does not fit raises `CodecError` with its `path`."""

def to_text(data: bytes, dicts: Optional[Sequence[Dictionary]] = None) -> tuple[str, str]:
    """`(form, text)`: the text the community's tools read (AAMP and BYML as
    YAML, AINB and RSTB as JSON, MSBT as the editors' YAML), as `codec
    to-text` writes it; the form is `aamp-yaml`, `byml-yaml`, `ainb-json`,
    `rstb-json` or `msbt-yaml`."""

def from_text(text: str, form: str) -> bytes:
    """The bytes a text of `form` describes (errors name line and column)."""

class Schema:
    """A RON schema: files of the format it describes, read and written by
    the schema interpreter."""

    def __init__(self, source: str) -> None:
        """`source`: the path of a `.ron` file, or the schema's text."""
    @property
    def name(self) -> str: ...
    @property
    def variants(self) -> list[str]: ...
    def read(self, data: bytes, variant: Optional[str] = None) -> Document:
        """The document: `schema`, `variant` and `document`."""
    def write(self, doc: Document) -> bytes:
        """The bytes of a document as `read` gives it."""
    def check(self, data: bytes, edits: bool = True) -> dict[str, Any]:
        """Reads and writes back: `identical`, `variant`, `first_difference`;
        and `edits`, the edit probe's `tried`, `held`, `refused` and
        `failed` (each failure a dict of `path`, `edit`, `why`)."""
    def dump(self, data: bytes) -> str:
        """Every field with its offset, size and value (`codec dump`)."""
