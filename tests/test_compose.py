"""docker-compose.yml read as Docker Compose reads it, since these machines have no Compose.

The file is validated against the Compose Specification's own JSON schema (a copy in
tests/data/compose-spec/, with its licence), then its ``extends`` and ``!reset`` are resolved
the way Compose 2.24+ does (README "Webhook mode behind Caddy") and what the resolved services
promise is checked: which services each profile starts, what the second replica keeps of the
first and what it drops, where each health check looks, and what reaches the host.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests/data/compose-spec/compose-spec.json"


class _Reset:
    """A value tagged ``!reset``: Compose drops what ``extends`` brought for that key."""

    def __init__(self, value: Any) -> None:
        self.value = value


class _ComposeLoader(yaml.SafeLoader):
    """YAML as Compose reads it: ``!reset`` and ``!override`` are its own tags."""


def _reset(loader: yaml.SafeLoader, node: yaml.Node) -> _Reset:
    if isinstance(node, yaml.SequenceNode):
        return _Reset(loader.construct_sequence(node))
    if isinstance(node, yaml.MappingNode):
        return _Reset(loader.construct_mapping(node))
    return _Reset(loader.construct_scalar(node))  # type: ignore[arg-type]


_ComposeLoader.add_constructor("!reset", _reset)


def _plain(value: Any) -> Any:
    """The document as the schema sees it: a tag's value in its place."""
    if isinstance(value, _Reset):
        return _plain(value.value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _raw() -> dict[str, Any]:
    loaded = yaml.load((ROOT / "docker-compose.yml").read_text(), Loader=_ComposeLoader)
    assert isinstance(loaded, dict)
    return loaded


def _resolve(services: dict[str, Any], name: str) -> dict[str, Any]:
    """A service with its ``extends`` applied: the base's keys, then the service's own, a
    ``!reset`` key emptied (Compose's merge of mappings; sequences such as ``ports`` are
    appended to the base's unless reset)."""
    own = services[name]
    base_name = (own.get("extends") or {}).get("service")
    merged = copy.deepcopy(_resolve(services, base_name)) if base_name else {}
    for key, value in own.items():
        if key == "extends":
            continue
        if isinstance(value, _Reset):
            merged[key] = _plain(value.value)
        elif isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = merged[key] + _plain(value)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **_plain(value)}
        else:
            merged[key] = _plain(value)
    return merged


def _services() -> dict[str, dict[str, Any]]:
    services = _raw()["services"]
    return {name: _resolve(services, name) for name in services}


def _started(profiles: set[str]) -> set[str]:
    """The services ``docker compose [--profile P] up`` starts."""
    return {
        name
        for name, service in _services().items()
        if not service.get("profiles") or set(service["profiles"]) & profiles
    }


def test_the_file_is_a_valid_compose_file() -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(_plain(_raw()))


def test_a_file_the_specification_refuses_is_refused() -> None:
    """The check can fail: a duration as a mapping and a profile as a string are not Compose."""
    broken = _plain(_raw())
    broken["services"]["bot"]["healthcheck"]["interval"] = {"seconds": 30}
    broken["services"]["bot-2"]["profiles"] = "webhook"  # a list in Compose
    errors = list(jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).iter_errors(broken))
    assert len(errors) == 2


def test_polling_starts_the_bot_and_redis_only() -> None:
    assert _started(set()) == {"redis", "bot"}


def test_the_webhook_profile_adds_a_replica_and_caddy() -> None:
    assert _started({"webhook"}) == {"redis", "bot", "bot-2", "caddy"}
    for name, service in _services().items():
        for needed in service.get("depends_on") or ():
            assert needed in _services(), (name, needed)


def test_the_second_replica_is_the_first_without_its_host_port() -> None:
    services = _services()
    first, second = services["bot"], services["bot-2"]
    assert second["ports"] == []
    assert first["ports"] == ["127.0.0.1:9300:9300"]
    kept = {key: value for key, value in second.items() if key not in {"ports", "profiles"}}
    assert kept == {key: value for key, value in first.items() if key != "ports"}
    assert second["environment"]["REDIS_URL"] == "redis://redis:6379/0"


def test_health_checks_ask_liveness_and_redis_starts_first() -> None:
    """A Telegram outage must not mark a running bot unhealthy: the check asks /livez."""
    services = _services()
    for name in ("bot", "bot-2"):
        check = " ".join(services[name]["healthcheck"]["test"])
        assert "/livez" in check, name
        assert "getMe" not in check, name
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_only_caddy_faces_the_internet() -> None:
    """Telegram reaches the webhook through Caddy's 443; the bots' metrics stay on loopback."""
    services = _services()
    assert services["caddy"]["ports"] == ["80:80", "443:443"]
    assert "ports" not in services["redis"]
    for name in ("bot", "bot-2"):
        for port in services[name]["ports"]:
            assert port.startswith("127.0.0.1:"), (name, port)
    mounted = {volume.split(":")[0] for volume in services["caddy"]["volumes"]}
    for path in ("./deploy/Caddyfile", "./deploy/caddy-run.sh"):
        assert path in mounted
        assert (ROOT / path).is_file()
