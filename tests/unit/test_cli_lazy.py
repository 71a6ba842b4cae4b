"""The command line imports only the invoked command's module: COMMAND_MODULES must name every command's module."""

from __future__ import annotations

import subprocess
import sys

import typer

from attest.cli import ALL_MODULES, COMMAND_MODULES, invoked_command
from tests.conftest import REPO


def test_every_command_maps_to_the_modules_that_register_it():
    from attest.cli import cli  # every module imported

    group = typer.main.get_group(cli)
    assert set(group.commands) == set(COMMAND_MODULES)
    for name, command in group.commands.items():
        callbacks = [sub.callback for sub in getattr(command, "commands", {}).values()] or [command.callback]
        modules = {c.__module__.removeprefix("attest.cli.") for c in callbacks}
        assert modules == set(COMMAND_MODULES[name]), name
    assert {m for ms in COMMAND_MODULES.values() for m in ms} == set(ALL_MODULES)


def test_the_invoked_command_is_found_past_the_app_options():
    assert invoked_command(["--data-dir", "reason", "query", "x"]) == "query"  # a folder named like a command
    assert invoked_command(["-c", "a.yaml", "reason", "--full"]) == "reason"
    assert invoked_command(["--config=a.yaml", "ontology", "check"]) == "ontology"
    assert invoked_command(["--help"]) is None
    assert invoked_command([]) is None


def test_a_command_runs_without_importing_the_others(tmp_path):
    code = ("import sys; sys.argv = ['attest', '--data-dir', sys.argv[1], 'explain', '--help']\n"
            "from attest.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('attest.cli.')))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "data")], cwd=REPO, capture_output=True,
                          text=True, check=True)
    assert "--max-depth" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "['attest.cli.base', 'attest.cli.reasoning']"


def test_an_unknown_command_gets_click_s_error_with_every_command_known(tmp_path):
    done = subprocess.run([sys.executable, "-m", "attest", "--data-dir", str(tmp_path / "data"), "reasn"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "No such command 'reasn'" in done.stderr


def test_the_full_help_leaves_the_pipeline_rdflib_and_settings_to_the_commands_that_use_them(tmp_path):
    code = ("import sys; sys.argv = ['attest', '--data-dir', sys.argv[1], '--help']\n"
            "from attest.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('rdflib', 'tqdm.cli', 'attest.ontology', 'attest.ingest.status', 'attest.extract.dates',"
            " 'spacy', 'openai', 'attest.settings', 'pydantic_settings') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "data")], cwd=REPO, capture_output=True,
                          text=True, check=True)
    assert "index" in done.stdout and "ontology" in done.stdout  # every command listed
    assert done.stdout.strip().splitlines()[-1] == "[]"
