"""The documentation tells the truth about the code: every setting and every command is in its reference page, the
README stays a short front door whose links reach files that exist. (`make test` builds the site with --strict.)"""

from __future__ import annotations

import re

import typer.main

from tests.conftest import REPO


DOCS = REPO / "docs"


def test_every_setting_is_in_the_settings_reference():
    from attest.settings import Settings

    page = (DOCS / "reference" / "settings.md").read_text(encoding="utf-8")
    missing = [name for name in Settings.model_fields if f"`{name}`" not in page]
    assert not missing, f"docs/reference/settings.md lacks a row for {missing}"


def test_every_command_is_in_the_cli_reference():
    from attest.cli import cli

    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    group = typer.main.get_group(cli)
    commands = []
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        commands += [f"attest {name} {sub}" for sub in subcommands] if subcommands else [f"attest {name}"]
    assert len(commands) >= 20, commands
    missing = [c for c in commands if f"`{c}" not in page]
    assert not missing, f"docs/reference/cli.md lacks {missing}"


def test_readme_is_a_short_front_door_whose_links_exist():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 10_000
    for command in ("make demo", "make test"):
        assert command in readme
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)]+)\)", readme) if not t.startswith(("http", "#"))]
    assert targets, "the README links the docs"
    missing = [t for t in targets if not (REPO / t).exists()]
    assert not missing, f"README links to missing files: {missing}"
