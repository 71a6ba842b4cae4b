"""One settings object: defaults, then a YAML/TOML file, then ATTEST_* environment variables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from attest import folders
from attest.errors import ConfigError

CONFIG_ENV = "ATTEST_CONFIG"
DEFAULT_CORS_ORIGINS = ("http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*")
DEFAULT_LABEL_PREDICATES = ("rdfs:label", "skos:prefLabel", "skos:altLabel", "schema:name", "foaf:name", "dct:title")


class Settings(BaseSettings):
    """Everything the service and the CLI can be configured with."""

    model_config = SettingsConfigDict(env_prefix="ATTEST_", env_nested_delimiter="__", extra="forbid")

    # store
    data_dir: Path = Field(Path("data"), description="Directory of the embedded Oxigraph store")
    base_iri: str = Field("https://w3id.org/attest/", description="Base under which entity, document and graph IRIs are minted")
    ontology_dir: Path = Field(Path("ontology"), description="Directory of the ontology's Turtle files")
    shapes_dir: Path = Field(Path("shapes"), description="Directory of the SHACL shapes' Turtle files")
    queries_dir: Path = Field(Path("queries"), description="Directory of the named SPARQL queries (*.rq)")
    ontology_modules_off: list[str] = Field([], description="Ontology modules left out: file names without .ttl in "
                                            "ontology_dir (and the shapes file of the same name), e.g. [general]")
    default_graph_as_union: bool = Field(True, description="SPARQL default graph is the union of all graphs unless the request names graphs")

    # remote store (store = sparql)
    store: Literal["embedded", "sparql"] = Field("embedded", description="embedded: Oxigraph under data_dir; sparql: a SPARQL 1.1 server at the store_*_url settings")
    store_query_url: str | None = Field(None, description="SPARQL 1.1 Query endpoint of the remote store")
    store_update_url: str | None = Field(None, description="SPARQL 1.1 Update endpoint of the remote store")
    store_gsp_url: str | None = Field(None, description="Graph Store Protocol endpoint of the remote store (bulk loads POST chunks there; unset: INSERT DATA chunks)")
    store_user: str | None = Field(None, description="User for HTTP basic auth to the remote store")
    store_password: SecretStr | None = Field(None, description="Password for HTTP basic auth to the remote store")
    store_token: SecretStr | None = Field(None, description="Bearer token for the remote store (wins over basic auth)")
    store_timeout_s: float = Field(60.0, gt=0, description="Client-side timeout of one request to the remote store (queries use their own deadline)")
    store_connect_timeout_s: float = Field(5.0, gt=0, description="Timeout of connecting to the remote store")
    store_timeout_param: str | None = Field(None, description="Query parameter carrying the deadline to the server, e.g. 'timeout' (Virtuoso, ms; Fuseki, s); unset: client-side timeout only")
    store_timeout_param_unit: Literal["s", "ms"] = Field("ms", description="Unit of store_timeout_param")
    store_union_param: str | None = Field("union-default-graph", description="Query parameter asking the server for the union default graph (Oxigraph's); unset for servers whose default graph already is the union")
    store_triple_terms: Literal["native", "encoded"] = Field("native", description="native: RDF 1.2 triple terms go to the store as they are; encoded: as reversible IRIs with rdf:subject/predicate/object descriptions, for stores without triple terms (Virtuoso)")
    store_accept: str | None = Field(None, description="Accept header of queries to the remote store; unset: TSV, SPARQL JSON, N-Triples, Turtle (Virtuoso: 'application/sparql-results+xml, application/n-triples;q=0.9', its TSV and JSON are not the standard's)")
    store_system_graphs: list[str] = Field([], description="The remote server's own graphs, which Attest neither lists, counts nor dumps (Virtuoso: its virtrdf#, ldp# and URIQA graphs)")
    store_query_form: bool = Field(False, description="POST queries URL-encoded (query=...) instead of as application/sparql-query (Virtuoso 7 never answers a direct POST of a query)")
    store_chunk_quads: int = Field(20_000, ge=1, description="Quads per request of a bulk load to the remote store")
    store_change_check_s: float = Field(0.05, ge=0, description="How often a process reads the remote store's write token to learn that another process wrote (answers then drop what they remembered); 0: before every request's lookups")
    store_lease_s: float = Field(120.0, gt=0, description="Lease of a bulk load's marker: a marker not renewed for this long is a crashed load, rolled back by the next process to start")

    # server
    host: str = Field("127.0.0.1", description="Bind address")
    port: int = Field(8000, ge=1, le=65535, description="Bind port")
    token: SecretStr | None = Field(None, description="Bearer token required for writes; unset = writes from loopback only")
    allowed_hosts: list[str] = Field(default_factory=list, description="Host names (or IP addresses) the service "
                                     "answers to besides localhost, 127.0.0.1, [::1] and the bind address; any other "
                                     "Host header is refused with 421 (DNS rebinding)")
    cors_origins: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CORS_ORIGINS),
        description="Origins (scheme://host[:port], port * = any) whose pages may call the service from a browser, "
                    "reads and writes; '*' is refused")
    federation_allowlist: list[str] = Field(default_factory=list, description="URL prefixes (http(s)://host[:port]/path) "
                                            "that SPARQL SERVICE and LOAD may reach; empty = no query or update makes "
                                            "Attest send a request anywhere")
    max_body_bytes: int = Field(2 * 1024 * 1024, ge=1024, description="Largest request body accepted")
    max_query_chars: int = Field(100_000, ge=100, description="Longest SPARQL query or update text accepted")
    query_timeout_s: float = Field(30.0, gt=0, description="Default deadline of a SPARQL query")
    max_query_timeout_s: float = Field(300.0, gt=0, description="Largest per-request deadline a client may ask for")
    max_result_rows: int = Field(100_000, ge=1, description="Most rows a SELECT returns before it is cut and flagged")
    max_result_bytes: int = Field(64 * 1024 * 1024, ge=1024, description="Most bytes of a query result (counted as TSV / N-Triples) before it is cut and flagged")
    query_workers: int = Field(4, ge=1, le=64, description="Query worker processes (each can be killed at its query's deadline)")
    query_workers_at_start: int = Field(1, ge=0, le=64, description="Query workers started with the server, each with the store open, so the first queries do not wait for a process start and a store open (the others start on demand, up to query_workers)")
    sparql_in_process: bool = Field(False, description="Run /sparql queries in server threads instead of the worker processes: less latency per query, but a query past its deadline is answered 503 while its evaluation runs on")
    max_heavy_requests: int = Field(4, ge=1, description="Ingests and answers run at once; more get 429 with Retry-After")
    warm_cache_mb: int = Field(4096, ge=0, description="At start, a background thread reads up to this many MB of the "
                               "embedded store's files (the full-text index first, then the newest table files) into "
                               "the system's page cache, at most half the memory the system has available, so the "
                               "first requests after a start (after a bulk ingest) do not wait on the disk; 0: off")

    # ingestion
    max_file_bytes: int = Field(20 * 1024 * 1024, ge=1, description="Largest document accepted for ingestion")

    # LLM (any OpenAI-compatible server)
    llm_base_url: str = Field("http://localhost:11434/v1", description="OpenAI-compatible API base URL")
    llm_model: str = Field("llama3.1", description="Model name")
    llm_api_key: SecretStr = Field(SecretStr("ollama"), description="API key (Ollama ignores it)")
    llm_timeout_s: float = Field(60.0, gt=0, description="Timeout of one LLM call")
    llm_max_retries: int = Field(3, ge=0, description="Retries on 429, 5xx, timeouts and malformed output")
    llm_concurrency: int = Field(4, ge=1, description="Chunks extracted at once")

    # reasoning
    reason_after_ingest: bool = Field(True, description="Materialize OWL 2 RL consequences after each ingest")
    ingest_nice: int = Field(10, ge=0, le=19, description="CPU niceness of the server's ingest thread (Linux): reads go "
                             "first when the cores are busy; 0 gives ingestion the same share as requests that read")
    ingest_worker: bool = Field(True, description="POST /documents runs the rule extractor and the SHACL gate in a "
                                "worker process (niced as ingest_nice), so ingestion does not hold the lock every "
                                "request of the server needs; false: in the server's ingest thread")
    ingest_batch_quads: int = Field(200_000, ge=0, description="`attest ingest` writes new documents with the bulk "
                                    "loader in batches of about this many quads, each all or nothing (each batch adds "
                                    "files that RocksDB's background compaction merges into the store: fewer, larger "
                                    "batches merge less); 0: one transaction per document")
    ingest_overlap: int = Field(64, ge=0, description="`attest ingest` with the offline rule extractor: a worker process "
                                "extracts and SHACL-gates up to this many coming documents while the command commits "
                                "earlier ones (both cores busy; the same graph as one after another); 0: all in one process")
    ingest_rewrite: bool = Field(False, description="`attest ingest` ends by rewriting the embedded store through "
                                 "Oxigraph's bulk loader (compressed files: about half the bytes at 1,000 documents, "
                                 "8% at 6,000; a crash-safe swap) when the next two settings allow it; off by default: "
                                 "it costs a fifth of a large ingest's time, and a server's first write undoes it. "
                                 "false: a compaction in place only (`attest compact` rewrites on demand)")
    ingest_rewrite_min_mb: float = Field(8.0, ge=0, description="... only when the store's table files are at least "
                                         "this many MB (half of a smaller store is not worth a second copy)")
    ingest_rewrite_growth: float = Field(0.25, ge=0, description="... only when the run grew the store's table files by "
                                         "at least this share of their size before it (the rewrite copies the whole "
                                         "store: after a few documents added to a large one it would cost minutes)")
    max_trace_depth: int = Field(5, ge=1, description="Depth bound of inference traces")

    # answers
    context_budget_chars: int = Field(12_000, ge=500, description="Character budget of the context text given to the answering LLM")
    label_predicates: list[str] = Field(
        default_factory=lambda: list(DEFAULT_LABEL_PREDICATES),
        description="Predicates (IRIs or CURIEs) whose values name an entity, the first one found being its preferred label")
    prefixes: dict[str, str] = Field(
        default_factory=dict, description="Extra prefixes (name: namespace IRI) for citable CURIE ids of IRIs not minted by Attest")

    # chat proxy (/v1/chat/completions, attest/proxy/)
    proxy_timeout_s: float = Field(30.0, gt=0, description="Timeout of one call to the proxy's upstream")
    proxy_attempts: int = Field(3, ge=1, le=10, description="Attempts per upstream call; 5xx and network errors are retried with jittered exponential backoff")
    proxy_backoff_s: float = Field(0.25, ge=0, description="First backoff of the proxy's retries (doubled per attempt, jittered)")
    proxy_breaker_failures: int = Field(5, ge=1, description="Consecutive failed upstream attempts that open the circuit breaker")
    proxy_breaker_cooloff_s: float = Field(10.0, gt=0, description="How long an open breaker refuses calls before it lets one through")
    proxy_upstream_allowlist: list[str] = Field(default_factory=list, description="Base URLs a request may choose with X-KGProxy-Upstream-URL; empty = the header is refused")
    proxy_retrieval_k: int = Field(10, ge=1, le=100, description="Entities and facts retrieved per store for a turn (the /context limit)")
    proxy_max_hops: int = Field(1, ge=0, le=3, description="Hops of the proxy's retrieval from the entities the conversation names (the /context max_hops)")
    proxy_query_turns: int = Field(3, ge=1, le=20, description="Last turns of the conversation that make the retrieval query")
    proxy_context_max_tokens: int = Field(1000, ge=50, description="Most tokens of the injected system message")
    proxy_context_share: float = Field(0.2, gt=0, le=1, description="... and at most this share of the model's context window")
    proxy_model_context_tokens: int = Field(8192, ge=256, description="The upstream model's context window in tokens")
    proxy_remove_low_confidence: bool = Field(False, description="Remove claims under 0.3 from a non-streamed reply's text (default: only flag them)")
    proxy_shared_documents: bool = Field(True, description="Documents ingested through /documents are visible to every namespace")
    proxy_cross_namespace_reads: bool = Field(False, description="Recall memory from every namespace, not only the request's")
    proxy_memory_extractor: Literal["auto", "rules"] = Field("auto", description="Extractor of stored turns: auto = the LLM when it answers, else the offline rules")

    @field_validator("allowed_hosts", "cors_origins", "federation_allowlist")
    @classmethod
    def _security_lists(cls, value: list[str], info: ValidationInfo) -> list[str]:
        # the same parsers the app uses when it starts (attest/api/origins.py, attest/sparql/outbound.py)
        from attest.api.origins import allowed_host_names, origin_matcher
        from attest.sparql.outbound import federation_prefixes

        parsers: dict[str, Callable[[list[str]], object]] = {
            "allowed_hosts": allowed_host_names, "cors_origins": origin_matcher,
            "federation_allowlist": federation_prefixes}
        parse = parsers[info.field_name or ""]
        try:
            parse(value)
        except ConfigError as exc:
            raise ValueError(exc.message) from None
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # the config file's values (passed as arguments) < ATTEST_* environment variables
        return env_settings, init_settings

    @property
    def store_path(self) -> Path:
        return self.data_dir / "store"


def read_config_file(path: Path) -> dict[str, Any]:
    """Read a YAML or TOML config file into a dict of settings."""
    import tomllib  # here: a run without a config file (most commands) need not import either parser

    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"config file {path} is not valid {path.suffix.lstrip('.').upper() or 'YAML'}: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of settings")
    return data


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Settings from a config file (or $ATTEST_CONFIG) < ATTEST_* environment < explicit overrides."""
    if config_file is None and os.environ.get(CONFIG_ENV):
        config_file = Path(os.environ[CONFIG_ENV])
    values = read_config_file(config_file) if config_file else {}
    try:
        settings = Settings(**values)
        explicit = settings.model_fields_set | overrides.keys()
        if overrides:
            # model_validate skips the environment, so overrides (CLI flags, tests) win over it
            settings = Settings.model_validate({**settings.model_dump(), **overrides})
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {exc}") from exc
    return settings.model_copy(update=folders.resolve(content_folders(settings), explicit))


def content_folders(settings: Settings) -> dict[str, Path]:
    """The ontology, shapes and named-query folders, by setting name."""
    return {setting: getattr(settings, setting) for setting in folders.FOLDERS}
