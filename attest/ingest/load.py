"""Load a document's text from a file or bytes: txt, md, html (bs4), pdf (pypdf); refuse what cannot be text or is empty."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from attest.errors import DocumentRejected, PayloadTooLarge, UnsupportedFormat
from attest.ingest.chunk import cleans_to_nothing

MEDIA_TYPES = {
    ".txt": "text/plain", ".text": "text/plain",
    ".md": "text/markdown", ".markdown": "text/markdown",
    ".html": "text/html", ".htm": "text/html",
    ".pdf": "application/pdf",
}
ACCEPTED_MEDIA_TYPES = {"text/plain", "text/markdown", "text/html", "application/pdf"}
# share of control characters (other than whitespace) above which "text" is really binary
MAX_CONTROL_SHARE = 0.01
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0e-\x1f]")  # below 32, less \t \n \v \f \r


@dataclass(frozen=True)
class LoadedDocument:
    """A document's text as ingested; every character offset Attest records points into `text`."""

    source: str  # the name it is known by: a path relative to the ingested folder, a file name or a given name
    media_type: str
    text: str
    size_bytes: int


def media_type_for(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in MEDIA_TYPES:
        shown = suffix or "(no extension)"
        raise UnsupportedFormat(
            f"{name}: unsupported document type {shown} (use .txt, .md, .html or .pdf)", source=name)
    return MEDIA_TYPES[suffix]


def load_path(path: Path, *, source: str | None = None, max_bytes: int) -> LoadedDocument:
    """Read one file; raises DocumentRejected, UnsupportedFormat or PayloadTooLarge with the reason."""
    source = source or path.name
    media_type = media_type_for(path.name)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise PayloadTooLarge(f"{source}: file is {size} bytes, over the limit of {max_bytes}",
                                  source=source, limit=max_bytes)
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentRejected(f"{source}: cannot read file: {exc.strerror}", source=source) from exc
    return load_bytes(data, source=source, media_type=media_type, max_bytes=max_bytes)


def load_bytes(data: bytes, *, source: str, media_type: str | None = None, max_bytes: int) -> LoadedDocument:
    """Turn raw bytes into a LoadedDocument; the media type defaults to the one of `source`'s extension."""
    media_type = (media_type or "").split(";", 1)[0].strip().lower() or media_type_for(source)
    if media_type not in ACCEPTED_MEDIA_TYPES:
        raise UnsupportedFormat(f"{source}: unsupported media type {media_type}", source=source, media_type=media_type)
    if len(data) > max_bytes:
        raise PayloadTooLarge(f"{source}: document is {len(data)} bytes, over the limit of {max_bytes}",
                              source=source, limit=max_bytes)
    if not data.strip():
        raise DocumentRejected(f"{source}: document is empty", source=source, reason="empty")
    if media_type == "application/pdf":
        decoded, text = None, _pdf_text(data, source)
    else:
        decoded = _decode(data, source)
        text = _html_text(decoded) if media_type == "text/html" else decoded
    if not text.strip():
        raise DocumentRejected(f"{source}: document has no text", source=source, reason="empty")
    if cleans_to_nothing(text, markdown=media_type == "text/markdown"):  # checked before "binary": "\x1b" is empty
        raise empty_after_cleaning(source)
    if decoded is not None:
        _refuse_binary(decoded, source)
    return LoadedDocument(source=source, media_type=media_type, text=text, size_bytes=len(data))


def empty_after_cleaning(source: str) -> DocumentRejected:
    return DocumentRejected(f"{source}: document is empty after cleaning (only control or invisible characters, "
                            "whitespace or Markdown markup)", source=source, reason="empty_after_cleaning")


def _decode(data: bytes, source: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
        if b"\x00" in data:
            raise DocumentRejected(f"{source}: looks like a binary file (contains NUL bytes), not text",
                                   source=source, reason="binary")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DocumentRejected(
            f"{source}: not valid {encoding.split('-sig')[0].upper()} text (undecodable byte at offset {exc.start})",
            source=source, reason="undecodable") from exc


def _refuse_binary(text: str, source: str) -> None:
    controls = len(CONTROL_CHARACTERS.findall(text))
    if controls > MAX_CONTROL_SHARE * len(text):
        raise DocumentRejected(f"{source}: looks like a binary file ({controls} control characters), not text",
                               source=source, reason="binary")


def _html_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    return soup.get_text("\n")


def _pdf_text(data: bytes, source: str) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns on every odd object; the result is what counts
    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise DocumentRejected(f"{source}: not a readable PDF ({exc})", source=source, reason="undecodable") from exc
    text = "\n\n".join(p.strip() for p in pages)
    if not text.strip():
        raise DocumentRejected(f"{source}: PDF has no extractable text (scanned images need OCR first)",
                               source=source, reason="empty")
    return text


def collect_files(paths: list[Path]) -> list[tuple[Path, str]]:
    """Files named or found under folders (recursively, hidden ones skipped), with their source names."""
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                rel = file.relative_to(path)
                if file.is_file() and not any(part.startswith(".") for part in rel.parts):
                    found.append((file, rel.as_posix()))
        else:
            found.append((path, path.name))
    return found
