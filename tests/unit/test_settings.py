"""Settings: defaults < config file < ATTEST_* environment < explicit overrides; bad files are clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from attest.errors import ConfigError
from attest.settings import load_settings


def test_precedence(tmp_path, monkeypatch):
    cfg = tmp_path / "attest.yaml"
    cfg.write_text("port: 9000\nllm_model: from-file\nquery_timeout_s: 5\n")
    monkeypatch.setenv("ATTEST_LLM_MODEL", "from-env")
    s = load_settings(cfg, query_timeout_s=7)
    assert (s.port, s.llm_model, s.query_timeout_s) == (9000, "from-env", 7)
    assert s.host == "127.0.0.1"


def test_toml_and_env_config_path(tmp_path, monkeypatch):
    cfg = tmp_path / "attest.toml"
    cfg.write_text('data_dir = "elsewhere"\n')
    monkeypatch.setenv("ATTEST_CONFIG", str(cfg))
    assert load_settings().data_dir == Path("elsewhere")


@pytest.mark.parametrize(
    "text, message",
    [("port: [1\n", "not valid YAML"), ("- a\n- b\n", "must hold a mapping"), ("port: 0\n", "invalid settings"),
     ("no_such_setting: 1\n", "invalid settings")],
)
def test_bad_config_file(tmp_path, text, message):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_settings(cfg)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings(tmp_path / "nope.yaml")


def test_secrets_are_not_printed(monkeypatch):
    monkeypatch.setenv("ATTEST_TOKEN", "s3cret-token")
    s = load_settings()
    assert "s3cret-token" not in repr(s) and "s3cret-token" not in str(s.model_dump())
    assert s.token.get_secret_value() == "s3cret-token"
