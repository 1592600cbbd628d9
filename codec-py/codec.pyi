"""Nintendo file formats (AAMP, AINB, legacy BDAT, BYML, MSBT, RSTB, SARC;
Yaz0 and zstd layers) and any RON schema, read and written byte for byte.

A document is the generic form of `docs/generic-text.md`: a dict of
`schema` (the format), `variant`, `document` (records as dicts in field
order, lists, ints, floats, strings; bytes as hex strings) and, from
`read`, `layers` (the Yaz0 and zstd layers around the file, outermost
first)."""

from os import PathLike
from typing import Any, Optional, Sequence, Union

Dictionary = Union[bytes, str, PathLike]
Document = dict[str, Any]

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

def read(data: bytes, format: Optional[str] = None, dicts: Optional[Sequence[Dictionary]] = None) -> Document:
    """Reads a file of a built-in format (detected unless `format` names
    it), through its layers."""

def write(doc: Document, dicts: Optional[Sequence[Dictionary]] = None) -> bytes:
    """Writes a document as `read` gives it, laid out as the game's tools
    lay it out, in its `layers`."""

def to_text(data: bytes, dicts: Optional[Sequence[Dictionary]] = None) -> tuple[str, str]:
    """`(form, text)`: the text the community's tools read (AAMP and BYML as
    YAML, AINB as JSON, MSBT as the editors' YAML), as `codec to-text`
    writes it; the form is `aamp-yaml`, `byml-yaml`, `ainb-json` or
    `msbt-yaml`."""

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
    def check(self, data: bytes) -> dict[str, Any]:
        """Reads and writes back: `identical`, `variant`, `first_difference`."""
    def dump(self, data: bytes) -> str:
        """Every field with its offset, size and value (`codec dump`)."""
