"""deploy/monitoring/ against the bot: every PromQL expression of the Grafana dashboard and of
the alert rules parses and names only metrics the bot exports (`bot.metrics.REGISTRY`); the
YAML files parse; the compose profile `monitoring` starts Prometheus and Grafana with these
files mounted where their configs look for them; the deployment page shows the probes.

The expressions are parsed by promql-parser (the Rust parser GreptimeDB uses), so a syntax error
or an unknown function fails here too, not only a misspelt metric. Prometheus' own promtool
(Debian's `prometheus`, which `python3 -m tests` installs: tests/system_packages.py) checks the
configs and runs the alerts' unit tests, deploy/monitoring/alerts-test.yml.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from bot import metrics
from bot.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
MONITORING = ROOT / "deploy" / "monitoring"
DASHBOARD = MONITORING / "grafana" / "dashboards" / "ochko.json"
ALERTS = MONITORING / "alerts.yml"
ALERT_TESTS = MONITORING / "alerts-test.yml"
# Each compose file with monitoring: its Prometheus config, and its bot services.
COMPOSE = {
    ROOT / "compose.yaml": (MONITORING / "prometheus.yml", ("ochko",)),
    ROOT / "deploy" / "docker-compose.postgres.yml": (
        MONITORING / "prometheus-replicas.yml",
        ("bot1", "bot2"),
    ),
}

# Series Prometheus writes itself for every target it scrapes, not the bot.
SCRAPE_SERIES = frozenset(
    {
        "up",
        "scrape_duration_seconds",
        "scrape_samples_scraped",
        "scrape_samples_post_metric_relabeling",
        "scrape_series_added",
    }
)
# The sample names each metric type exposes, after the family's name (prometheus-client gives a
# counter's family without its `_total`, and a labelled metric no samples until first used).
SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "gaugehistogram": ("_bucket", "_gsum", "_gcount"),
    "summary": ("", "_sum", "_count", "_created"),
    "info": ("_info",),
    "stateset": ("",),
    "unknown": ("",),
}
# Grafana's own interval variables, which are not PromQL: any valid duration stands for them.
GRAFANA_INTERVAL = re.compile(r"\$(?:__(?:rate_interval|interval|range)\b|\{__\w+\})")
LABEL_VALUES = re.compile(r"^\s*label_values\((?P<query>.+),\s*(?P<label>\w+)\s*\)\s*$")


def exported_names(registry: CollectorRegistry) -> frozenset[str]:
    """Every series name the registry's metrics expose, used yet or not."""
    names: set[str] = set()
    for family in registry.collect():
        names.update(family.name + suffix for suffix in SUFFIXES[family.type])
        names.update(sample.name for sample in family.samples)
    return frozenset(names)


def _selector_name(node: promql_parser.VectorSelector) -> str:
    if node.name:
        return str(node.name)
    if not node.matchers.or_matchers:
        for matcher in node.matchers.matchers:
            if matcher.name == "__name__" and matcher.op == promql_parser.MatchOp.Equal:
                return str(matcher.value)
    raise ValueError(f"a selector without one literal metric name: {node}")


def metric_names(expr: str) -> set[str]:
    """The metric names an expression selects (not its functions, labels, strings or keywords).
    A syntax error, an unknown function or a selector whose name is a pattern raises."""
    tree = promql_parser.parse(GRAFANA_INTERVAL.sub("5m", expr))
    names: set[str] = set()
    todo: list[Any] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, promql_parser.VectorSelector):
            names.add(_selector_name(node))
        elif isinstance(node, promql_parser.MatrixSelector):
            todo.append(node.vector_selector)
        elif isinstance(node, promql_parser.Call):
            todo.extend(node.args)
        elif isinstance(node, promql_parser.AggregateExpr):
            todo.append(node.expr)
            if node.param is not None:
                todo.append(node.param)
        elif isinstance(node, promql_parser.BinaryExpr):
            todo += [node.lhs, node.rhs]
        elif isinstance(
            node, promql_parser.ParenExpr | promql_parser.UnaryExpr | promql_parser.SubqueryExpr
        ):
            todo.append(node.expr)
        elif not isinstance(node, promql_parser.NumberLiteral | promql_parser.StringLiteral):
            raise TypeError(f"unexpected PromQL node {type(node).__name__}: {node}")
    return names


def unknown_metrics(expr: str, known: frozenset[str]) -> set[str]:
    return metric_names(expr) - known - SCRAPE_SERIES


def walk_dicts(tree: Any) -> Iterator[dict[str, Any]]:
    """Every mapping in a tree of JSON or YAML lists and mappings, at any depth."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo.extend(node)
        elif isinstance(node, dict):
            yield node
            todo.extend(node.values())


def dashboard_queries(dashboard: Any) -> Iterator[str]:
    """Every PromQL expression of a dashboard: the panels' targets (at any depth: rows keep
    theirs) and the variables' `label_values(<selector>, <label>)` queries."""
    for node in walk_dicts(dashboard):
        if isinstance(node.get("expr"), str):
            yield node["expr"]
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable["query"]
        text = query["query"] if isinstance(query, dict) else query
        match = LABEL_VALUES.match(text)
        assert match, f"variable {variable['name']}: a query the test cannot read: {text!r}"
        yield match["query"]


def dashboard_problems(dashboard: Any, known: frozenset[str]) -> list[str]:
    problems = []
    for expr in dashboard_queries(dashboard):
        try:
            missing = unknown_metrics(expr, known)
        except ValueError as error:
            problems.append(f"{expr!r}: {error}")
            continue
        if missing:
            problems.append(f"{expr!r} names {sorted(missing)}")
    return problems


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


@pytest.fixture(scope="module")
def known() -> frozenset[str]:
    return exported_names(metrics.REGISTRY)


@pytest.fixture(scope="module")
def dashboard() -> Any:
    return json.loads(DASHBOARD.read_text())


# ------------------------------------------------------------------ the checker itself


def test_the_checker_finds_a_metric_that_does_not_exist(known: frozenset[str]) -> None:
    assert "ochko_updates_total" in known
    assert unknown_metrics("sum(rate(ochko_updates_total[5m]))", known) == set()
    assert unknown_metrics("sum(rate(ochko_update_total[5m]))", known) == {"ochko_update_total"}
    # Wherever the name stands: under a binary operator, an aggregation's parameter, a
    # subquery, a __name__ matcher.
    assert unknown_metrics("up == 0 or ochko_nope", known) == {"ochko_nope"}
    assert unknown_metrics("topk(scalar(ochko_k), ochko_games_held)", known) == {"ochko_k"}
    assert unknown_metrics("max_over_time((-ochko_x)[10m:1m])", known) == {"ochko_x"}
    assert unknown_metrics('{__name__="ochko_y", kind="hit"}', known) == {"ochko_y"}
    # A histogram's series exist, its bare name does not.
    assert unknown_metrics("ochko_commit_seconds_bucket + ochko_commit_seconds_count", known) == (
        set()
    )
    assert unknown_metrics("ochko_commit_seconds", known) == {"ochko_commit_seconds"}


def test_the_checker_skips_functions_labels_strings_and_keywords(known: frozenset[str]) -> None:
    expr = (
        "label_replace(histogram_quantile(0.9, sum without (instance) (rate("
        'ochko_press_answer_seconds_bucket{instance=~"$instance", le!="ochko_fake"}['
        '$__rate_interval]))), "by", "$1", "le", "(.*)") > on (job) group_left '
        "vector(1) unless ignoring (kind) time() - ochko_last_update_timestamp_seconds offset 5m"
    )
    assert metric_names(expr) == {
        "ochko_press_answer_seconds_bucket",
        "ochko_last_update_timestamp_seconds",
    }
    assert unknown_metrics(expr, known) == set()


def test_the_checker_refuses_what_it_cannot_check() -> None:
    with pytest.raises(ValueError, match="parenthesis"):
        metric_names("sum(rate(ochko_updates_total[5m])")
    with pytest.raises(ValueError, match="rates"):
        metric_names("rates(ochko_updates_total[5m])")
    with pytest.raises(ValueError, match="literal metric name"):
        metric_names('{__name__=~"ochko_.*"}')


def test_the_checker_reports_a_bad_panel_in_a_dashboard(known: frozenset[str]) -> None:
    good = {"panels": [{"targets": [{"expr": "sum(ochko_active_tables)"}]}]}
    assert dashboard_problems(good, known) == []
    bad = {
        "panels": [
            {"type": "row", "panels": [{"targets": [{"expr": "ochko_tables_active"}]}]},
            {"targets": [{"expr": "sum(ochko_active_tables"}]},
        ],
        "templating": {
            "list": [{"name": "v", "type": "query", "query": "label_values(ochko_gone, kind)"}]
        },
    }
    problems = dashboard_problems(bad, known)
    assert len(problems) == 3, problems
    assert any("ochko_tables_active" in p for p in problems)
    assert any("ochko_gone" in p for p in problems)
    assert any("parenthesis" in p for p in problems)


def test_exported_names_come_from_the_metric_types() -> None:
    registry = CollectorRegistry()
    Counter("a", "", ["kind"], registry=registry)  # labelled, never used: no samples
    Gauge("b", "", registry=registry)
    Histogram("c_seconds", "", registry=registry)
    names = exported_names(registry)
    assert {"a_total", "b", "c_seconds_bucket", "c_seconds_sum", "c_seconds_count"} <= names
    assert not {"a", "c_seconds"} & names


# ------------------------------------------------------------------ the dashboard


def test_every_dashboard_query_names_only_exported_metrics(
    dashboard: Any, known: frozenset[str]
) -> None:
    queries = list(dashboard_queries(dashboard))
    assert len(queries) >= 20
    assert dashboard_problems(dashboard, known) == []


def test_the_dashboard_shows_every_metric_of_the_bot(dashboard: Any, known: frozenset[str]) -> None:
    """Each of the bot's metric families has a panel (a histogram through any of its series)."""
    shown = set().union(*(metric_names(q) for q in dashboard_queries(dashboard)))
    families = {f.name: f.type for f in metrics.REGISTRY.collect() if f.name.startswith("ochko_")}
    missing = {
        name
        for name, kind in families.items()
        if not any(name + suffix in shown for suffix in SUFFIXES[kind])
    }
    assert families
    assert missing == set()


def test_the_latency_panels_are_quantiles_of_the_histograms(dashboard: Any) -> None:
    queries = list(dashboard_queries(dashboard))
    for metric in ("ochko_press_answer_seconds", "ochko_commit_seconds"):
        quantiles = [q for q in queries if "histogram_quantile" in q and f"{metric}_bucket" in q]
        assert len(quantiles) >= 2, metric
        assert all("by (le)" in q for q in quantiles)


def test_the_dashboard_uses_the_provisioned_data_source(dashboard: Any) -> None:
    provisioned = load_yaml(
        MONITORING / "grafana" / "provisioning" / "datasources" / "prometheus.yml"
    )
    (source,) = provisioned["datasources"]
    assert source["type"] == "prometheus"
    assert source["url"] == "http://prometheus:9090"
    used = {
        (node["datasource"]["type"], node["datasource"]["uid"])
        for node in walk_dicts(dashboard)
        if isinstance(node.get("datasource"), dict)
    }
    assert used == {("prometheus", source["uid"])}
    assert dashboard["uid"] == "ochko"
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))


# ------------------------------------------------------------------ the alert rules

RULE_KEYS = {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}
DURATION = re.compile(r"^(\d+(ms|s|m|h|d|w|y))+$")


def rules() -> list[dict[str, Any]]:
    return [rule for group in load_yaml(ALERTS)["groups"] for rule in group["rules"]]


def test_the_alert_rules_are_well_formed() -> None:
    groups = load_yaml(ALERTS)["groups"]
    assert groups
    assert len({g["name"] for g in groups}) == len(groups)
    for group in groups:
        assert set(group) <= {"name", "interval", "rules"}
        assert group["rules"]
    names = [rule["alert"] for rule in rules()]
    assert len(names) == len(set(names))
    for rule in rules():
        assert set(rule) <= RULE_KEYS, rule["alert"]
        assert re.fullmatch(r"Ochko[A-Z]\w+", rule["alert"])
        assert isinstance(rule["expr"], str)
        assert DURATION.match(rule["for"]), rule["alert"]
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert all(isinstance(v, str) for v in rule["labels"].values())
        assert rule["annotations"]["summary"]
        assert all(isinstance(v, str) for v in rule["annotations"].values())


def test_every_alert_names_only_exported_metrics(known: frozenset[str]) -> None:
    for rule in rules():
        assert unknown_metrics(rule["expr"], known) == set(), rule["alert"]


def test_the_alerts_cover_what_the_issue_asks() -> None:
    by_metric: dict[str, list[str]] = {}
    for rule in rules():
        for name in metric_names(rule["expr"]):
            by_metric.setdefault(name, []).append(rule["expr"])
    assert (
        'increase(ochko_botapi_requests_total{result="flood"}[5m]) > 0'
        in (by_metric["ochko_botapi_requests_total"])
    )
    assert any("deriv(" in e for e in by_metric["ochko_lane_backlog"])
    assert any("time() -" in e for e in by_metric["ochko_last_update_timestamp_seconds"])
    assert "ochko_replica_lease == 0" in by_metric["ochko_replica_lease"]
    assert any(e.startswith('up{job="ochko"} == 0') for e in by_metric["up"])


def promtool(*args: str, cwd: Path) -> str:
    """promtool's output; fails the test when it exits non-zero."""
    if os.environ.get("OCHKO_TEST_PROMTOOL", "").strip() == "0":
        pytest.skip("OCHKO_TEST_PROMTOOL=0: the promtool checks are switched off")
    path = shutil.which("promtool")
    if path is None:
        pytest.fail("promtool is not installed: apt-get install prometheus (Debian's package)")
    done = subprocess.run([path, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_alerts_fire_as_their_unit_tests_say() -> None:
    """Each alert has unit tests that see it fire, and promtool passes them."""
    tested = {
        test["alertname"]
        for case in load_yaml(ALERT_TESTS)["tests"]
        for test in case["alert_rule_test"]
        if test["exp_alerts"]
    }
    assert tested == {rule["alert"] for rule in rules()}
    assert load_yaml(ALERT_TESTS)["rule_files"] == [ALERTS.name]
    assert "SUCCESS" in promtool("test", "rules", ALERT_TESTS.name, cwd=MONITORING)


@pytest.mark.parametrize("name", ["prometheus.yml", "prometheus-replicas.yml"])
def test_promtool_accepts_the_prometheus_configs(name: str, tmp_path: Path) -> None:
    """With the rule file where the config names it inside the container."""
    config = (MONITORING / name).read_text()
    assert "/etc/prometheus/alerts.yml" in config
    (tmp_path / name).write_text(config.replace("/etc/prometheus/alerts.yml", str(ALERTS)))
    output = promtool("check", "config", name, cwd=tmp_path)
    assert f"SUCCESS: {len(rules())} rules found" in output


# ------------------------------------------------------------------ Prometheus and compose


@pytest.mark.parametrize(
    "path",
    [*sorted(ROOT.glob("deploy/**/*.yml")), ROOT / "compose.yaml"],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_yaml_files_parse(path: Path) -> None:
    assert isinstance(load_yaml(path), dict)


def _mounts(service: dict[str, Any], compose: Path) -> dict[str, Path]:
    """A service's bind mounts: where inside → the file or folder on the host."""
    mounts = {}
    for volume in service.get("volumes", []):
        source, target, *_ = volume.split(":")
        if source.startswith("."):
            mounts[target] = (compose.parent / source).resolve()
    return mounts


@pytest.mark.parametrize("compose", list(COMPOSE), ids=lambda p: p.name)
def test_the_monitoring_profile_starts_prometheus_and_grafana(compose: Path) -> None:
    prometheus_config, bots = COMPOSE[compose]
    services = load_yaml(compose)["services"]
    profiled = {name for name, s in services.items() if "monitoring" in s.get("profiles", [])}
    assert profiled == {"prometheus", "grafana"}
    for name, service in services.items():
        if name in profiled:
            # A pinned release, never `latest`.
            assert re.fullmatch(r"[\w./-]+:v?\d+\.\d+\.\d+", service["image"]), name
            assert all(p.startswith("127.0.0.1:") for p in service["ports"]), name
    for bot in bots:
        assert "profiles" not in services[bot]
        assert services[bot]["healthcheck"]["test"] == ["CMD", "python", "-m", "bot.health"]

    # Prometheus: its config and the rules it names.
    prometheus = services["prometheus"]
    mounts = _mounts(prometheus, compose)
    config_path = next(
        a.split("=", 1)[1] for a in prometheus["command"] if a.startswith("--config.file=")
    )
    assert mounts[config_path] == prometheus_config
    config = load_yaml(prometheus_config)
    for rule_file in config["rule_files"]:
        assert mounts[rule_file] == ALERTS
    (job,) = config["scrape_configs"]
    assert job["job_name"] == "ochko"
    targets = [t for c in job["static_configs"] for t in c["targets"]]
    assert sorted(t.split(":")[0] for t in targets) == sorted(bots)

    # Grafana: the provisioning folder, and the dashboards where the provider reads them.
    grafana = services["grafana"]
    mounts = _mounts(grafana, compose)
    assert mounts["/etc/grafana/provisioning"] == MONITORING / "grafana" / "provisioning"
    provider = load_yaml(MONITORING / "grafana" / "provisioning" / "dashboards" / "ochko.yml")
    (source,) = provider["providers"]
    assert mounts[source["options"]["path"]] == DASHBOARD.parent
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{source['options']['path']}/{DASHBOARD.name}"
    assert "prometheus" in grafana["depends_on"]


def test_prometheus_scrapes_the_port_the_bot_serves_metrics_on() -> None:
    """compose.yaml's bot serves them on METRICS_PORT (the Mini App off by default); the
    replicas, with the Mini App on, on its port."""
    (job,) = load_yaml(MONITORING / "prometheus.yml")["scrape_configs"]
    assert job["static_configs"][0]["targets"] == [
        f"ochko:{Settings.model_fields['metrics_port'].default}"
    ]
    compose = load_yaml(ROOT / "deploy" / "docker-compose.postgres.yml")
    environment = compose["x-bot"]["environment"]
    assert environment["WEBAPP_URL"]
    (job,) = load_yaml(MONITORING / "prometheus-replicas.yml")["scrape_configs"]
    ports = {t.split(":")[1] for t in job["static_configs"][0]["targets"]}
    assert ports == {environment["WEBAPP_PORT"]}
    assert environment["METRICS_ENABLED"].startswith("${METRICS_ENABLED:-true")


# ------------------------------------------------------------------ the documentation


def _yaml_blocks(markdown: str) -> list[Any]:
    """Every ```yaml block of a page, parsed (a block that does not parse fails the test)."""
    return [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", markdown, re.S)]


def test_the_deployment_page_shows_the_monitoring_and_the_probes() -> None:
    page = (ROOT / "docs" / "deployment.md").read_text()
    section = page.split("\n## Monitoring\n", 1)[1].split("\n## ", 1)[0]
    for word in (
        "METRICS_ENABLED",
        "METRICS_PORT",
        "LOG_FORMAT=json",
        "--profile monitoring",
        "http://127.0.0.1:3000",
    ):
        assert word in section, word
    for rule in rules():
        assert rule["alert"] in section, rule["alert"]
    probes = {
        key: value
        for node in walk_dicts(_yaml_blocks(section))
        for key, value in node.items()
        if key.endswith("Probe")
    }
    assert probes["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert probes["readinessProbe"]["httpGet"]["path"] == "/readyz"
    readme = (ROOT / "README.md").read_text()
    assert "docs/deployment.md#monitoring" in readme
