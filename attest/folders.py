"""The ontology, shapes and named-query folders: configured ones must exist, else the copies packaged with Attest."""

from __future__ import annotations

import shutil
from importlib.resources import files
from pathlib import Path

from attest.errors import ConfigError

# setting -> folder name, both in the repository and under attest/bundled/ in the installed package
FOLDERS = {"ontology_dir": "ontology", "shapes_dir": "shapes", "queries_dir": "queries"}
STARTER_CONFIG = """\
# Attest settings (each one can also be set as ATTEST_<NAME> in the environment).
# Relative paths are read from the folder attest runs in: run it from this folder.
data_dir: data
ontology_dir: ontology
shapes_dir: shapes
queries_dir: queries
base_iri: https://w3id.org/attest/
"""


def packaged(setting: str) -> Path:
    """The packaged copy of a folder (a real directory: the package is installed unzipped)."""
    return Path(str(files("attest") / "bundled" / FOLDERS[setting]))


def env_name(setting: str) -> str:
    return f"ATTEST_{setting.upper()}"


def resolve(values: dict[str, Path], explicit: set[str]) -> dict[str, Path]:
    """Each folder setting whose folder is missing: an error when it was configured, the packaged copy when defaulted."""
    resolved = {}
    for setting, path in values.items():
        if Path(path).is_dir():
            continue
        if setting in explicit:
            raise ConfigError(f"{setting} is {path}, which is not a folder: set {setting} in the config file or "
                              f"{env_name(setting)} to an existing folder (`attest init DIR` writes an editable copy)")
        resolved[setting] = packaged(setting)
    return resolved


def packaged_in_use(values: dict[str, Path]) -> list[str]:
    """The folder settings that point at the packaged copies."""
    return [setting for setting, path in values.items() if Path(path) == packaged(setting)]


def init_folder(target: Path, *, force: bool = False) -> list[Path]:
    """Write editable copies of the packaged folders and a starter config into `target`; never overwrite unless forced."""
    config = target / "attest.yaml"
    written = [target / name for name in FOLDERS.values()] + [config]
    existing = [path for path in written if path.exists()]
    if existing and not force:
        raise ConfigError(f"{', '.join(str(p) for p in existing)} already exist: nothing written (--force overwrites)")
    target.mkdir(parents=True, exist_ok=True)
    for setting, name in FOLDERS.items():
        shutil.copytree(packaged(setting), target / name, dirs_exist_ok=True)
    config.write_text(STARTER_CONFIG, encoding="utf-8")
    return written
