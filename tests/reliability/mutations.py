"""Mutations of well-formed documents for the reader fuzzer (``test_reader_fuzz.py``).

Each operator takes the file's bytes and a ``random.Random`` and returns new bytes: byte-level
damage (bit flips, insertions, deletions, truncations), ZIP-level damage of an Office package
(swapped, dropped, duplicated or renamed entries, a wrong CRC), XML damage inside a package
part (dropped or duplicated elements, broken tags, huge or absurd attribute values, entity
tricks, a foreign namespace), PDF object damage (dropped, swapped or duplicated objects, absurd
numbers, wrong names, dangling and circular references, deep nesting, broken xref offsets) and
text or JSON damage for Markdown and metadata sidecars.

A mutant is a pure function of ``(seed, format, index)`` (``mutant``), so a failure is replayed
from the seed the test prints:

    python -m tests.reliability.mutations SEED FORMAT INDEX CORPUS_DIR OUT_FILE
"""

from __future__ import annotations

import io
import json
import random
import re
import sys
import warnings
import zipfile
from collections.abc import Callable, Sequence
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

Operator = Callable[[bytes, random.Random], bytes]

# Values that have made parsers stumble: boundaries of integer types, NaN and infinities in
# their spellings, empty and non-numeric text, control and bidi characters.
ODD_VALUES = (
    "-1",
    "0",
    "-0",
    "2147483648",
    "-2147483649",
    "18446744073709551616",
    "1e308",
    "1e999",
    "-1e999",
    "NaN",
    "inf",
    "",
    " ",
    "abc",
    "1.5",
    "0x10",
    "١٢٣",
    "\u202e1",
    "A" * 300,
)
INTERESTING_BYTES = (b"\x00", b"\xff", b"\x7f", b"\x80", b"<", b">", b"&", b'"', b"\n", b"\xc3")


# --------------------------------------------------------------------------- bytes


def flip_bits(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def insert_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    if rng.random() < 0.5:
        chunk = rng.randbytes(rng.randint(1, 64))
    else:
        chunk = rng.choice(INTERESTING_BYTES) * rng.randint(1, 4096)
    return data[:at] + chunk + data[at:]


def delete_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + data[at + rng.randint(1, min(256, len(data) - at)) :]


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(1, len(data))]


def duplicate_chunk(data: bytes, rng: random.Random) -> bytes:
    start = rng.randrange(len(data))
    chunk = data[start : start + rng.randint(1, 512)]
    at = rng.randrange(len(data) + 1)
    return data[:at] + chunk * rng.randint(1, 8) + data[at:]


BYTE_OPERATORS: tuple[Operator, ...] = (
    flip_bits,
    insert_bytes,
    delete_bytes,
    truncate,
    duplicate_chunk,
)


# --------------------------------------------------------------------------- zip


def _pack(entries: Sequence[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with (
        warnings.catch_warnings(),  # "Duplicate name": a renamed or duplicated entry, on purpose
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
    ):
        warnings.simplefilter("ignore", UserWarning)
        for name, payload in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, payload)
    return buffer.getvalue()


def _named(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def swap_entries(data: bytes, rng: random.Random) -> bytes:
    """Two parts exchange their contents (a slide where the workbook's styles should be)."""
    entries = _named(data)
    i, j = rng.sample(range(len(entries)), 2)
    (a, pa), (b, pb) = entries[i], entries[j]
    entries[i], entries[j] = (a, pb), (b, pa)
    return _pack(entries)


def drop_entry(data: bytes, rng: random.Random) -> bytes:
    entries = _named(data)
    del entries[rng.randrange(len(entries))]
    return _pack(entries)


def duplicate_entry(data: bytes, rng: random.Random) -> bytes:
    """A part stored twice under one name: first with other content, or the same bytes."""
    entries = _named(data)
    name, payload = entries[rng.randrange(len(entries))]
    other = rng.choice(entries)[1] if rng.random() < 0.5 else payload
    return _pack([*entries, (name, other)])


def rename_entry(data: bytes, rng: random.Random) -> bytes:
    entries = _named(data)
    i = rng.randrange(len(entries))
    name, payload = entries[i]
    renames = (
        name.upper(),
        name + ".bak",
        name.replace("/", "\\"),
        "../" + name,
        name.replace("1", "2") if "1" in name else name + "2",
        "/" + name,
    )
    entries[i] = (rng.choice(renames), payload)
    return _pack(entries)


def corrupt_crc(data: bytes, rng: random.Random) -> bytes:
    """One central-directory record's CRC-32 no longer matches its entry."""
    records = [m.start() for m in re.finditer(b"PK\x01\x02", data)]
    at = rng.choice(records) + 16
    out = bytearray(data)
    out[at : at + 4] = (int.from_bytes(out[at : at + 4], "little") ^ 0x5A5A5A5A).to_bytes(
        4, "little"
    )
    return bytes(out)


def damage_deflate(data: bytes, rng: random.Random) -> bytes:
    """A byte of one entry's compressed data flipped (its headers left intact)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = rng.choice([i for i in archive.infolist() if i.compress_size > 0])
    # The local header: 30 fixed bytes, then the name and the extra field of its own.
    local = info.header_offset
    name_length = int.from_bytes(data[local + 26 : local + 28], "little")
    extra_length = int.from_bytes(data[local + 28 : local + 30], "little")
    start = local + 30 + name_length + extra_length
    out = bytearray(data)
    out[rng.randrange(start, start + info.compress_size)] ^= 1 << rng.randrange(8)
    return bytes(out)


ZIP_OPERATORS: tuple[Operator, ...] = (
    swap_entries,
    drop_entry,
    duplicate_entry,
    rename_entry,
    corrupt_crc,
    damage_deflate,
)


# --------------------------------------------------------------------------- xml in a zip part


def _xml_parts(entries: Sequence[tuple[str, bytes]]) -> list[int]:
    return [i for i, (name, _) in enumerate(entries) if name.endswith((".xml", ".rels"))]


def _mutate_part(
    data: bytes, rng: random.Random, edit: Callable[[bytes, random.Random], bytes]
) -> bytes:
    entries = _named(data)
    parts = _xml_parts(entries)
    # Content parts (slides, sheets, the document body, charts) are where readers look most.
    main = [
        i
        for i in parts
        if re.search(r"(slide|sheet|document|chart|shared|workbook)", entries[i][0])
    ]
    i = rng.choice(main if main and rng.random() < 0.8 else parts)
    name, payload = entries[i]
    entries[i] = (name, edit(payload, rng))
    return _pack(entries)


def _tree(payload: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, huge_tree=True)
    return etree.fromstring(payload, parser)


def _pick(root: etree._Element, rng: random.Random) -> etree._Element | None:
    elements = [e for e in root.iter() if e is not root and isinstance(e.tag, str)]
    return rng.choice(elements) if elements else None


def _serialize(root: etree._Element) -> bytes:
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))


def _drop_element(payload: bytes, rng: random.Random) -> bytes:
    root = _tree(payload)
    element = _pick(root, rng)
    if element is not None and element.getparent() is not None:
        element.getparent().remove(element)
    return _serialize(root)


def _duplicate_element(payload: bytes, rng: random.Random) -> bytes:
    root = _tree(payload)
    element = _pick(root, rng)
    if element is not None:
        for _ in range(rng.choice((1, 1, 2, 50))):
            element.addnext(deepcopy(element))
    return _serialize(root)


def _odd_attribute(payload: bytes, rng: random.Random) -> bytes:
    root = _tree(payload)
    candidates = [e for e in root.iter() if isinstance(e.tag, str) and e.attrib]
    if not candidates:
        return payload
    element = rng.choice(candidates)
    key = rng.choice(list(element.attrib))
    roll = rng.random()
    if roll < 0.2:
        del element.attrib[key]
    elif roll < 0.35:
        element.set(key, rng.choice("A9") * rng.choice((10_000, 1_000_000)))
    else:
        element.set(key, rng.choice(ODD_VALUES))
    return _serialize(root)


def _odd_text(payload: bytes, rng: random.Random) -> bytes:
    root = _tree(payload)
    texts = [e for e in root.iter() if isinstance(e.tag, str) and e.text and e.text.strip()]
    if not texts:
        return payload
    element = rng.choice(texts)
    element.text = rng.choice(ODD_VALUES) if rng.random() < 0.7 else element.text * 5000
    return _serialize(root)


def _foreign_namespace(payload: bytes, rng: random.Random) -> bytes:
    match = re.search(rb'xmlns(:\w+)?="([^"]+)"', payload)
    if match is None:
        return payload
    return payload.replace(match.group(2), b"urn:fuzz:" + rng.randbytes(3).hex().encode())


def _break_tag(payload: bytes, rng: random.Random) -> bytes:
    spots = [m.start() for m in re.finditer(rb"[<>]", payload)]
    if not spots:
        return payload
    at = rng.choice(spots)
    replacement = rng.choice((b"", b"<", b">", b"</", b"<!--", b"]]>", b"\x00"))
    return payload[:at] + replacement + payload[at + 1 :]


# DOCTYPEs a hostile author can put before the root: an internal entity, an external one
# reading a local file, a parameter entity, a small expansion and an undeclared entity.
_DOCTYPES = (
    (b'<!DOCTYPE r [<!ENTITY e "FUZZ">]>', b"&e;"),
    (b'<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>', b"&e;"),
    (b'<!DOCTYPE r [<!ENTITY % p "x"> %p;]>', b"x"),
    (
        b'<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
        b"&c;",
    ),
    (b"", b"&undefined;"),
)


def _entity_trick(payload: bytes, rng: random.Random) -> bytes:
    doctype, reference = rng.choice(_DOCTYPES)
    body = re.sub(rb"^<\?xml[^>]*\?>\s*", b"", payload)
    texts = [m.end() for m in re.finditer(rb">[^<\s]", body)]
    if texts:
        at = rng.choice(texts) - 1
        body = body[:at] + reference + body[at:]
    return b'<?xml version="1.0" encoding="UTF-8"?>' + doctype + body


XML_EDITS: tuple[Callable[[bytes, random.Random], bytes], ...] = (
    _drop_element,
    _duplicate_element,
    _odd_attribute,
    _odd_text,
    _foreign_namespace,
    _break_tag,
    _entity_trick,
)


def _xml_operator(edit: Callable[[bytes, random.Random], bytes]) -> Operator:
    def operator(data: bytes, rng: random.Random) -> bytes:
        return _mutate_part(data, rng, edit)

    operator.__name__ = f"xml{edit.__name__}"
    return operator


XML_OPERATORS: tuple[Operator, ...] = tuple(_xml_operator(edit) for edit in XML_EDITS)


# --------------------------------------------------------------------------- pdf objects

_OBJECT = re.compile(rb"(\d+) (\d+) obj\b(.*?)\bendobj", re.S)
_NAMES = (b"/Page", b"/Pages", b"/Catalog", b"/Font", b"/XObject", b"/Type0", b"/Null", b"/")


def _objects(data: bytes) -> list[re.Match[bytes]]:
    return list(_OBJECT.finditer(data))


def _replace_body(data: bytes, match: re.Match[bytes], body: bytes) -> bytes:
    return data[: match.start(3)] + body + data[match.end(3) :]


def pdf_drop_object(data: bytes, rng: random.Random) -> bytes:
    objects = _objects(data)
    return _replace_body(data, rng.choice(objects), b" null\n") if objects else data


def pdf_swap_objects(data: bytes, rng: random.Random) -> bytes:
    objects = _objects(data)
    if len(objects) < 2:
        return data
    a, b = sorted(rng.sample(objects, 2), key=lambda m: m.start())
    return (
        data[: a.start(3)]
        + b.group(3)
        + data[a.end(3) : b.start(3)]
        + a.group(3)
        + data[b.end(3) :]
    )


def pdf_duplicate_object(data: bytes, rng: random.Random) -> bytes:
    objects = _objects(data)
    if not objects:
        return data
    match = rng.choice(objects)
    return data[: match.end()] + b"\n" + match.group(0) + data[match.end() :]


def _dictionary_part(data: bytes, rng: random.Random) -> tuple[int, int] | None:
    """The span of one object's dictionary (not its stream data)."""
    objects = _objects(data)
    if not objects:
        return None
    match = rng.choice(objects)
    end = data.find(b"stream", match.start(3), match.end(3))
    return match.start(3), end if end >= 0 else match.end(3)


def pdf_odd_number(data: bytes, rng: random.Random) -> bytes:
    span = _dictionary_part(data, rng)
    if span is None:
        return data
    numbers = [m for m in re.finditer(rb"-?\d+(\.\d+)?", data[span[0] : span[1]])]
    if not numbers:
        return data
    number = rng.choice(numbers)
    value = rng.choice((b"-1", b"0", b"99999999999", b"1e308", b"-0.0", b"3.4e38", b"2147483648"))
    start, end = span[0] + number.start(), span[0] + number.end()
    return data[:start] + value + data[end:]


def pdf_odd_name(data: bytes, rng: random.Random) -> bytes:
    span = _dictionary_part(data, rng)
    if span is None:
        return data
    names = [m for m in re.finditer(rb"/[A-Za-z0-9]+", data[span[0] : span[1]])]
    if not names:
        return data
    name = rng.choice(names)
    start, end = span[0] + name.start(), span[0] + name.end()
    return data[:start] + rng.choice(_NAMES) + data[end:]


def pdf_odd_reference(data: bytes, rng: random.Random) -> bytes:
    """A reference to a missing object, to the object itself (a cycle) or to the root."""
    span = _dictionary_part(data, rng)
    if span is None:
        return data
    refs = [m for m in re.finditer(rb"(\d+) 0 R", data[span[0] : span[1]])]
    if not refs:
        return data
    ref = rng.choice(refs)
    target = rng.choice((b"9999 0 R", b"1 0 R", b"2 0 R", b"0 0 R", b"3 5 R"))
    start, end = span[0] + ref.start(), span[0] + ref.end()
    return data[:start] + target + data[end:]


def pdf_deep_nesting(data: bytes, rng: random.Random) -> bytes:
    span = _dictionary_part(data, rng)
    if span is None:
        return data
    depth = rng.choice((100, 1_000, 50_000))
    at = data.find(b"<<", span[0], span[1])
    if at < 0:
        return data
    nested = b"/Fuzz " + b"[" * depth + b"]" * depth + b" "
    return data[: at + 2] + nested + data[at + 2 :]


def pdf_xref_offsets(data: bytes, rng: random.Random) -> bytes:
    rows = [m for m in re.finditer(rb"(\d{10}) (\d{5}) [nf]", data)]
    if not rows:
        return data
    row = rng.choice(rows)
    offset = rng.choice((b"0000000000", b"9999999999", b"%010d" % rng.randrange(len(data))))
    return data[: row.start(1)] + offset + data[row.end(1) :]


def pdf_stream_damage(data: bytes, rng: random.Random) -> bytes:
    streams = [m for m in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S)]
    if not streams:
        return data
    stream = rng.choice(streams)
    if stream.end(1) <= stream.start(1):
        return data
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        out[rng.randrange(stream.start(1), stream.end(1))] ^= 1 << rng.randrange(8)
    return bytes(out)


PDF_OPERATORS: tuple[Operator, ...] = (
    pdf_drop_object,
    pdf_swap_objects,
    pdf_duplicate_object,
    pdf_odd_number,
    pdf_odd_name,
    pdf_odd_reference,
    pdf_deep_nesting,
    pdf_xref_offsets,
    pdf_stream_damage,
)


# --------------------------------------------------------------------------- text and json

_ODD_TEXT = (
    "\x00",
    "\ufeff",
    "\u202e",
    "\u200d" * 1000,
    "\u0301" * 5000,
    "|" * 2000,
    "| --- " * 500 + "|\n",
    "#" * 1000 + " x\n",
    "\r",
    "\r\n" * 100,
    "9" * 400,
    "1e999",
    "（45）",
    "\x1b]0;title\x07",
    "x" * 200_000,
    "```\n",
    "> " * 1000,
)


def text_insert(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    at = rng.randrange(len(text) + 1)
    return (text[:at] + rng.choice(_ODD_TEXT) + text[at:]).encode("utf-8")


def text_shuffle_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    rng.shuffle(lines)
    return b"\n".join(lines)


def text_table_damage(data: bytes, rng: random.Random) -> bytes:
    """A Markdown table row loses or gains a cell, or its separator row breaks."""
    lines = data.split(b"\n")
    rows = [i for i, line in enumerate(lines) if line.count(b"|") >= 2]
    if not rows:
        return data
    i = rng.choice(rows)
    roll = rng.random()
    if roll < 0.3:
        lines[i] = lines[i].replace(b"|", b"", 1)
    elif roll < 0.6:
        lines[i] = lines[i] + b" extra |" * rng.choice((1, 100))
    else:
        lines.insert(i, lines[i])
    return b"\n".join(lines)


def text_encoding(data: bytes, rng: random.Random) -> bytes:
    encoding = rng.choice(("utf-16", "utf-16-be", "gb18030", "latin-1", "utf-8-sig"))
    return data.decode("utf-8", "replace").encode(encoding, "replace")


TEXT_OPERATORS: tuple[Operator, ...] = (
    text_insert,
    text_shuffle_lines,
    text_table_damage,
    text_encoding,
)

_JSON_VALUES: tuple[object, ...] = (
    None,
    True,
    0,
    -1,
    1e308,
    "",
    "PUBLIC",
    "public",
    "RESTRICTED",
    "TOP SECRET",
    "\ud800",
    [],
    ["PUBLIC"],
    {"level": "PUBLIC"},
    "x" * 100_000,
)


def json_value(data: bytes, rng: random.Random) -> bytes:
    try:
        document = json.loads(data)
    except ValueError:
        document = {}
    if not isinstance(document, dict):
        document = {"value": document}
    key = rng.choice(("sensitivity", "sensitivity_override", "owner", "title", ""))
    document[key] = rng.choice(_JSON_VALUES)
    return json.dumps(document).encode("utf-8")


def json_shape(data: bytes, rng: random.Random) -> bytes:
    shapes = (
        b"[]",
        b"null",
        b'"PUBLIC"',
        b"1e999",
        b'{"sensitivity": NaN}',
        b'{"sensitivity": Infinity}',
        b'{"sensitivity": "PUBLIC", "sensitivity": "RESTRICTED"}',
        b'{"sensitivity": "\\ud800"}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
        b"\xef\xbb\xbf" + data,
        data.decode("utf-8", "replace").encode("utf-16"),
    )
    return rng.choice(shapes)


JSON_OPERATORS: tuple[Operator, ...] = (json_value, json_shape)


# --------------------------------------------------------------------------- formats


@dataclass(frozen=True)
class Format:
    name: str  # the test id
    suffixes: tuple[str, ...]  # demo corpus files of this format
    operators: tuple[Operator, ...]
    # True: the mutant is a metadata sidecar, "mutant.md.meta.json", ingested beside an
    # unchanged copy of its document, "mutant.md".
    sidecar: bool = False


# The format-aware operators are listed twice: a well-formed container with damaged content
# gets past the safety checks and deeper into the readers than damaged bytes do.
FORMATS: tuple[Format, ...] = (
    Format("pptx", (".pptx",), (*BYTE_OPERATORS, *ZIP_OPERATORS, *XML_OPERATORS, *XML_OPERATORS)),
    Format("xlsx", (".xlsx",), (*BYTE_OPERATORS, *ZIP_OPERATORS, *XML_OPERATORS, *XML_OPERATORS)),
    Format("docx", (".docx",), (*BYTE_OPERATORS, *ZIP_OPERATORS, *XML_OPERATORS, *XML_OPERATORS)),
    Format("pdf", (".pdf",), (*BYTE_OPERATORS, *PDF_OPERATORS, *PDF_OPERATORS)),
    Format("md", (".md",), (*BYTE_OPERATORS, *TEXT_OPERATORS, *TEXT_OPERATORS)),
    Format("sidecar", (".meta.json",), (*BYTE_OPERATORS, *JSON_OPERATORS, *JSON_OPERATORS), True),
)
BY_NAME = {f.name: f for f in FORMATS}


@dataclass(frozen=True)
class Mutant:
    source: Path  # the demo file it was made from
    name: str  # the file name to write it under
    data: bytes
    operators: tuple[str, ...]


def sources(corpus: Path, fmt: Format) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.name.endswith(fmt.suffixes))


def mutant(seed: int, fmt: Format, index: int, corpus: Path) -> Mutant:
    """The ``index``-th mutant of ``fmt`` for ``seed``: one to three stacked operators."""
    rng = random.Random(f"{seed}:{fmt.name}:{index}")
    source = rng.choice(sources(corpus, fmt))
    data = source.read_bytes()
    applied: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        operator = rng.choice(fmt.operators)
        try:
            changed = operator(data, rng)
        except Exception:  # an earlier operator left nothing this one can take apart
            continue
        if changed and changed != data:
            data = changed
            applied.append(operator.__name__)
    if not applied:
        data = truncate(data, rng)
        applied.append(truncate.__name__)
    name = source.name
    if fmt.name == "md" and rng.random() < 0.3:
        name = source.with_suffix(".txt").name
    return Mutant(source, f"mutant{_suffix(name, fmt)}", data, tuple(applied))


def _suffix(name: str, fmt: Format) -> str:
    return ".md.meta.json" if fmt.sidecar else Path(name).suffix


def main(argv: Sequence[str]) -> int:
    seed, name, index, corpus, out = argv
    made = mutant(int(seed), BY_NAME[name], int(index), Path(corpus))
    Path(out).write_bytes(made.data)
    print(f"{made.source.name} via {', '.join(made.operators)} -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
