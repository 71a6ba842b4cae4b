"""Loading and chunking: supported types, bad input with clear messages, offsets into the original text."""

from __future__ import annotations

import pytest

from attest.errors import DocumentRejected, PayloadTooLarge, UnsupportedFormat
from attest.ingest.chunk import chunk_text, clean, mention_span
from attest.ingest.load import collect_files, load_bytes, load_path
from tests.ingest_support import make_pdf

LIMIT = 10_000


def test_text_markdown_html_and_pdf_load(tmp_path):
    (tmp_path / "a.txt").write_text("Oxigraph is a triple store.", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Title\n\nRDFLib is a *library*.", encoding="utf-8")
    (tmp_path / "c.html").write_text("<html><head><title>T</title><script>var x=1;</script></head>"
                                     "<body><p>Apache Jena uses TDB.</p></body></html>", encoding="utf-8")
    (tmp_path / "d.pdf").write_bytes(make_pdf("SHACL validates RDF graphs."))
    docs = {p.name: load_path(p, max_bytes=LIMIT) for p in sorted(tmp_path.iterdir())}
    assert docs["a.txt"].text == "Oxigraph is a triple store."
    assert docs["b.md"].media_type == "text/markdown"
    assert "Apache Jena uses TDB." in docs["c.html"].text and "var x" not in docs["c.html"].text
    assert "SHACL validates RDF graphs." in docs["d.pdf"].text
    assert docs["d.pdf"].media_type == "application/pdf"


@pytest.mark.parametrize("name, data, error, words", [
    ("empty.txt", b"", DocumentRejected, "empty"),
    ("blank.md", b"  \n\t \n", DocumentRejected, "empty"),
    ("binary.txt", b"\x00\x01\x02PK\x03\x04" * 50, DocumentRejected, "binary"),
    ("controls.txt", b"\x01\x02\x03PK\x05" * 50, DocumentRejected, "binary"),
    # text that cleans to nothing (issue 11): an escape, zero-width characters only, Markdown markup only
    ("escape.txt", b"\x1b", DocumentRejected, "empty after cleaning"),
    ("invisible.txt", "\u200b\u200d\u2060 \ufeff\n".encode(), DocumentRejected, "empty after cleaning"),
    ("markup.md", b"# \n\n---\n\n**`\n> \n", DocumentRejected, "empty after cleaning"),
    ("invisible.html", "<p>\u200b</p><p>\u00ad</p>".encode(), DocumentRejected, "empty after cleaning"),
    ("latin1.txt", "caf\u00e9 cr\u00e8me".encode("latin-1"), DocumentRejected, "not valid UTF-8"),
    ("image.png", b"\x89PNG\r\n\x1a\n", UnsupportedFormat, "unsupported document type .png"),
    ("noext", b"text", UnsupportedFormat, "unsupported document type"),
    ("broken.pdf", b"%PDF-1.4 this is not a pdf", DocumentRejected, "not a readable PDF"),
    ("big.txt", b"a" * (LIMIT + 1), PayloadTooLarge, "over the limit"),
])
def test_bad_input_is_refused_with_a_clear_message(tmp_path, name, data, error, words):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(error) as caught:
        load_path(path, max_bytes=LIMIT)
    assert words in caught.value.message and name in caught.value.message


def test_utf16_with_bom_and_utf8_bom_decode():
    text = "Wikidata is a knowledge graph."
    assert load_bytes(text.encode("utf-16"), source="w.txt", max_bytes=LIMIT).text == text
    assert load_bytes(b"\xef\xbb\xbf" + text.encode(), source="w.txt", max_bytes=LIMIT).text == text


def test_collect_files_walks_folders_and_skips_hidden(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.md").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "y.txt").write_text("y")
    assert [s for _, s in collect_files([tmp_path])] == ["sub/x.md", "y.txt"]


def test_cleaning_maps_every_kept_character_back_to_the_original():
    original = ("# Heading\n\nOxigraph   uses **RocksDB**\u200b and [Rust](https://rust-lang.org).\n\n\n"
                "- item one\n- `code` item")
    cleaned = clean(original, markdown=True)
    assert cleaned.text == "Heading\n\nOxigraph uses RocksDB and Rust.\n\nitem one\ncode item"  # list items keep their lines
    for i, ch in enumerate(cleaned.text):
        if not ch.isspace():
            assert original[cleaned.to_original(i)] == ch


def test_chunks_cover_the_text_with_original_offsets_and_content_hash_ids():
    sentences = [f"Sentence number {i} talks about Oxigraph and SPARQL." for i in range(200)]
    original = "\n\n".join(" ".join(sentences[i:i + 5]) for i in range(0, 200, 5))
    cleaned = clean(original)
    chunks = chunk_text("doc", cleaned, max_chars=500)
    assert len(chunks) > 10 and all(len(c.text) <= 500 for c in chunks)
    for c in chunks:
        assert original[c.start:c.end] == c.text  # no whitespace to collapse here: exact slices
    assert [c.index for c in chunks] == list(range(len(chunks)))
    again = chunk_text("doc", clean(original), max_chars=500)
    assert [c.id for c in again] == [c.id for c in chunks]  # content-hash ids are stable
    other = chunk_text("other-doc", clean(original), max_chars=500)
    assert not {c.id for c in other} & {c.id for c in chunks}  # ...and never shared between documents


def test_a_changed_paragraph_changes_only_its_chunk_id():
    paragraphs = [f"Paragraph {i}. " + "Apache Jena stores RDF. " * 40 for i in range(4)]
    before = chunk_text("d", clean("\n\n".join(paragraphs)), max_chars=1100)
    paragraphs[2] = paragraphs[2].replace("Paragraph 2.", "Paragraph two.")
    after = chunk_text("d", clean("\n\n".join(paragraphs)), max_chars=1100)
    changed = {c.id for c in after} - {c.id for c in before}
    assert len(changed) == 1


def test_mention_span_points_into_the_original_text():
    original = "Intro.\n\n  The   W3C   published **SHACL** in 2017."
    cleaned = clean(original, markdown=True)
    chunk = chunk_text("d", cleaned)[0]
    start, end = mention_span(chunk, cleaned, "SHACL", None, None)
    assert original[start:end] == "SHACL"
    offset = chunk.text.index("W3C")
    start, end = mention_span(chunk, cleaned, "W3C", offset, offset + 3)
    assert original[start:end] == "W3C"
    assert mention_span(chunk, cleaned, "Absent", None, None) is None


def test_binary_is_told_by_the_share_of_control_characters_other_than_whitespace():
    words = "Oxigraph stores RDF. " * 48  # 1,008 characters
    assert load_bytes((words + "\x01\x1f" * 5).encode(), source="ten.txt", max_bytes=LIMIT).text  # 10 of 1,018: kept
    with pytest.raises(DocumentRejected, match="11 control characters"):
        load_bytes((words + "\x02\x0e" * 5 + "\x08").encode(), source="eleven.txt", max_bytes=LIMIT)
    spaced = words + "\t\n\v\f\r" * 40  # whitespace controls do not count
    assert load_bytes(spaced.encode(), source="spaced.txt", max_bytes=LIMIT).text.startswith("Oxigraph")
