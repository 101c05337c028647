"""deploy/prometheus: the scrape configuration and the alert rules parse, scrape the ports the
systemd units use, and every metric the rules and the operator docs name is one Herald exports.

promtool is not available here: the files are parsed as YAML and the rules' expressions are
reduced to the metric names they read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from prometheus_client import generate_latest

from herald.jobs.registry import load_handlers
from herald.metrics.children import ChildMetrics

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
# Words of PromQL that are not metric names, and Prometheus's own series.
PROMQL = {
    "sum", "max", "min", "avg", "count", "rate", "irate", "increase", "delta", "deriv",
    "histogram_quantile", "without", "by", "and", "or", "unless", "on", "ignoring", "bool",
    "offset", "up", "time",
}  # fmt: skip


def exported_names(client: TestClient, tmp_path: Path) -> set[str]:
    """Every series name Herald can export: the families of a real app's /metrics and
    /metrics/shared and of a server's worker children, with their sample suffixes."""
    load_handlers()
    texts = [client.get("/metrics").text, client.get("/metrics/shared").text]
    texts.append(generate_latest(ChildMetrics(tmp_path, lambda: [os.getpid()])).decode())
    names: set[str] = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", "\n".join(texts), re.M):
        names.add(name)
        if kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_count", f"{name}_sum"}
        if kind == "counter" and not name.endswith("_total"):
            names.add(f"{name}_total")
    return names


def metric_names(expression: str) -> set[str]:
    """The metric names an expression reads (labels, strings and ranges taken out)."""
    bare = re.sub(r'"[^"]*"|\{[^}]*\}|\[[^\]]*\]', " ", expression)
    bare = re.sub(r"\b(without|by|on|ignoring)\s*\([^)]*\)", " ", bare)
    words = set(re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", bare))
    return {w for w in words if w not in PROMQL}


def load(name: str) -> dict[str, object]:
    loaded = yaml.safe_load((PROMETHEUS / name).read_text())
    assert isinstance(loaded, dict)
    return loaded


def rules() -> list[dict[str, str]]:
    groups = load("herald-alerts.yml")["groups"]
    assert isinstance(groups, list)
    return [rule for group in groups for rule in group["rules"]]


def test_the_alerts_cover_queue_age_deliveries_backlog_and_disk() -> None:
    found = rules()
    names = [rule["alert"] for rule in found]
    assert len(names) == len(set(names))
    used = set().union(*(metric_names(rule["expr"]) for rule in found))
    assert {
        "herald_queue_oldest_due_seconds",
        "herald_webhook_attempts_total",
        "herald_webhook_deliveries",
        "herald_home_filesystem_avail_bytes",
        "herald_sources_longest_failing_seconds",
    } <= used
    for rule in found:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}
        assert rule["annotations"]["summary"]
        if "for" in rule:
            assert re.fullmatch(r"\d+[smh]", rule["for"])


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_every_metric_the_rules_and_docs_use_is_exported(
    client: TestClient, tmp_path: Path
) -> None:
    exported = exported_names(client, tmp_path)
    for rule in rules():
        unknown = metric_names(rule["expr"]) - exported
        assert not unknown, f"{rule['alert']} reads metrics Herald does not export: {unknown}"
    for page in ("docs/deployment.md", "docs/operations.md"):
        named = set(re.findall(r"\b(herald_[a-z_]+)", (ROOT / page).read_text()))
        assert named, page
        assert not named - exported, f"{page} names unknown metrics: {named - exported}"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_shared_gauges_are_only_read_with_max(client: TestClient, tmp_path: Path) -> None:
    """A shared gauge summed over its targets would count the queue once per target."""
    shared = re.findall(r"^# TYPE (\S+) ", client.get("/metrics/shared").text, re.M)
    assert "herald_queue_jobs" in shared
    for rule in rules():
        for name in metric_names(rule["expr"]) & set(shared):
            assert re.search(rf"max without \(instance, job\) \((\w+\()?{name}", rule["expr"]), (
                rule["alert"]
            )


def test_the_scrape_config_reads_every_process_and_the_shared_state_once() -> None:
    config = load("prometheus.yml")
    assert config["rule_files"] == ["herald-alerts.yml"]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}  # type: ignore[attr-defined]
    assert set(jobs) == {"herald", "herald-shared"}
    per_process = jobs["herald"]["static_configs"][0]["targets"]
    assert jobs["herald"].get("metrics_path", "/metrics") == "/metrics"
    # The API units' ports (herald-api@8080, @8081) and the workers' (herald-worker@9101, @9102).
    assert per_process == ["127.0.0.1:8080", "127.0.0.1:8081", "127.0.0.1:9101", "127.0.0.1:9102"]
    assert jobs["herald-shared"]["metrics_path"] == "/metrics/shared"
    assert jobs["herald-shared"]["static_configs"][0]["targets"] == ["127.0.0.1:8080"]
