"""`attest answer "question"` and `attest verify FILE`: grounded answers and citation checks in the terminal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, Literal, TypeVar, cast

import typer

from attest.answer.limits import MAX_HOPS, MAX_LIMIT, MAX_QUESTION_BYTES, MAX_VERIFY_CHARS
from attest.cli.base import cli, settings_of

if TYPE_CHECKING:
    from attest.answer.models import CitationReport, VerifyReport
    from attest.answer.service import AnswerService

MODES = ("auto", "llm", "extractive")
AnswerMode = Literal["auto", "llm", "extractive"]
T = TypeVar("T")


def _service_run(ctx: typer.Context, work: Callable[[AnswerService], T]) -> T:
    from attest.answer.inference import reasoner_inference  # spaCy and the OpenAI client: imported when used
    from attest.answer.service import AnswerService
    from attest.store import open_store
    from attest.vocab import Iris

    settings = settings_of(ctx)
    store = open_store(settings, read_only=True)
    try:
        iris = Iris(settings.base_iri)
        return work(AnswerService(store, iris, settings, reasoner_inference(store, iris, settings)))
    finally:
        store.close()


@cli.command()
def answer(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question (at most 10 KB)")],
    mode: Annotated[str, typer.Option(help="auto (LLM, else extractive), llm or extractive")] = "auto",
    max_hops: Annotated[int, typer.Option("--max-hops", help="Hops of expansion, 0-3")] = 2,
    limit: Annotated[int, typer.Option(help="Most entities and facts in the context, 1-100")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full report as JSON")] = False,
) -> None:
    """Answer a question from the graph; every claim's citations are verified and scored."""
    check_question(question, mode, MODES, max_hops)
    if not 1 <= limit <= MAX_LIMIT:
        raise typer.BadParameter(f"must be between 1 and {MAX_LIMIT}", param_hint="--limit")
    answer_mode = cast(AnswerMode, mode)  # one of MODES: checked above
    report = _service_run(ctx, lambda s: s.answer(question, mode=answer_mode, max_hops=max_hops, limit=limit))
    typer.echo(report.model_dump_json(indent=2) if as_json else render(report))


@cli.command()
def verify(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Text with citation markers, or - for standard input", allow_dash=True)],
    as_json: Annotated[bool, typer.Option("--json", help="Print the full report as JSON")] = False,
) -> None:
    """Check the citations of a text (e.g. written by your own LLM) against the graph and score its claims."""
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"cannot read {file}: {exc}", param_hint="FILE") from exc
    if len(text) > MAX_VERIFY_CHARS:
        raise typer.BadParameter(f"the text is over the limit of {MAX_VERIFY_CHARS} characters", param_hint="FILE")
    report = _service_run(ctx, lambda s: s.verify(text))
    typer.echo(report.model_dump_json(indent=2) if as_json else render(report))


def check_question(question: str, mode: str, modes: tuple[str, ...], max_hops: int) -> None:
    """The arguments `answer` and `ask-sparql` share, refused with a clear message."""
    if len(question.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise typer.BadParameter(f"the question is over the limit of {MAX_QUESTION_BYTES} bytes (10 KB)", param_hint="QUESTION")
    if mode not in modes:
        raise typer.BadParameter(f"mode must be one of {', '.join(modes)}", param_hint="--mode")
    if not 0 <= max_hops <= MAX_HOPS:
        raise typer.BadParameter(f"must be between 0 and {MAX_HOPS}", param_hint="--max-hops")


def render(report: VerifyReport) -> str:
    """The answer with markers replaced by numbered references, then each claim's confidence and the references."""
    refs: dict[str, int] = {}
    lines = []
    for claim in report.claims:
        text = claim.text
        for c in claim.citations:
            n = refs.setdefault(c.marker, len(refs) + 1)
            text = text.replace(c.marker, f"[{n}]")
        score = "  -  " if claim.confidence is None else f"{claim.confidence:.2f}"
        flags = f"  ({', '.join(claim.flags)})" if claim.flags else ""
        lines.append(f"  {score}  {' '.join(text.split())}{flags}")
    out = [f"mode: {report.mode}   confidence: {report.confidence:.2f}" + (f"   flags: {', '.join(report.flags)}" if report.flags else ""),
           "", "claims (confidence, text):", *lines]
    if refs:
        out += ["", "citations:"]
        seen: dict[str, CitationReport] = {}
        for claim in report.claims:
            for c in claim.citations:
                seen.setdefault(c.marker, c)
        for marker, n in refs.items():
            c = seen[marker]
            what = c.label or c.ref
            depth = f", depth {c.depth}" if c.status == "inferred" else ""
            out.append(f"  [{n}] {c.kind} {what}: {c.status}{depth}, {c.confidence:.2f}")
            for step in c.trace:
                out.append(f"        {step.rule} (depth {step.depth}): {_short(step.conclusion)} <- "
                           + "; ".join(_short(p) for p in step.premises))
    if report.notes:
        out += ["", *[f"note: {n}" for n in report.notes]]
    return "\n".join(out)


def _short(triple: list[str]) -> str:
    return " ".join(t.rsplit("#", 1)[-1].rsplit("/", 1)[-1] for t in triple)
