"""Judge model clients from other packages, registered as ``fairpanel.providers`` entry points.

Each test installs a throwaway distribution (a ``*.dist-info`` folder and a module) on
``sys.path`` inside tmp_path, exactly what ``pip install`` of a plugin package would leave.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import textwrap
from collections.abc import Iterator
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import panel_experiment
from helpers.paths import DOCS
from pydantic import ValidationError

from fairpanel.agents import (
    ENTRY_POINT_GROUP,
    PROVIDERS,
    EndpointLimits,
    LimitedClient,
    Message,
    ModelCallError,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    PluginError,
    Provider,
    Sampling,
    endpoint_of,
    find_provider,
    plugin_providers,
)

PLUGIN_MODULE = "fairpanel_echo_plugin"
PLUGIN_SOURCE = '''
"""A tiny judge model client: answers as fairpanel's mock does, and counts its calls."""

from fairpanel.agents import MockBias, ModelReply, ModelRequest, ModelSpec, Sampling, Usage
from fairpanel.agents import endpoint_of, mock_reply

CALLS = []


class EchoClient:
    def __init__(self, spec: ModelSpec) -> None:
        self._spec = spec
        self.closed = False

    @property
    def model_id(self) -> str:
        return self._spec.id

    @property
    def endpoint(self) -> str:
        return endpoint_of(self._spec)

    def unsupported(self, sampling: Sampling) -> list[str]:
        return ["seed"] if sampling.seed is not None else []

    async def complete(self, request: ModelRequest) -> ModelReply:
        CALLS.append(request)
        text = mock_reply(request, MockBias())
        return ModelReply(text=text, usage=Usage(prompt_tokens=3, completion_tokens=2))

    async def aclose(self) -> None:
        self.closed = True


class NoReport:
    """A client that cannot say which sampling settings it ignores."""

    model_id = "broken/x"
    endpoint = "broken"

    async def complete(self, request):
        raise AssertionError("never called")

    async def aclose(self):
        return None


def create(spec: ModelSpec) -> EchoClient:
    return EchoClient(spec)


def broken(spec: ModelSpec) -> NoReport:
    return NoReport()
'''

ENTRY_POINTS = f"""\
[fairpanel.providers]
myplugin = {PLUGIN_MODULE}:create
openai = {PLUGIN_MODULE}:create
broken = {PLUGIN_MODULE}:broken
missing = {PLUGIN_MODULE}:no_such_factory
"""


def install(site: Path, module: str, source: str, entry_points: str) -> None:
    """What ``pip install`` of a plugin leaves on sys.path: a module and its dist-info."""
    dist_info = site / f"{module}-0.1.0.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.1.0\n",
        encoding="utf-8",
    )
    (dist_info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Install the plugin distribution; yields a function importing its module."""
    install(tmp_path / "site", PLUGIN_MODULE, PLUGIN_SOURCE, ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    yield lambda: importlib.import_module(PLUGIN_MODULE)
    sys.modules.pop(PLUGIN_MODULE, None)
    importlib.invalidate_caches()


def test_built_in_providers_are_entry_points_of_fairpanel_itself() -> None:
    """fairpanel's own providers come through the same entry-point group as plugins."""
    points = distribution("fairpanel").entry_points.select(group=ENTRY_POINT_GROUP)
    assert sorted(point.name for point in points) == sorted(PROVIDERS)
    assert set(PROVIDERS) == {"mock", "local", "openai", "openai-compatible", "anthropic"}
    for point in points:
        provider = point.load()
        assert isinstance(provider, Provider)
        assert find_provider(point.name) is provider


def test_without_the_plugin_the_provider_is_unknown() -> None:
    with pytest.raises(ValidationError, match="unknown provider 'myplugin'"):
        ModelSpec(id="myplugin/echo")


@pytest.mark.usefixtures("plugin")
def test_plugin_provider_validates_and_built_ins_win() -> None:
    spec = ModelSpec(id="myplugin/echo")
    assert spec.provider == "myplugin" and spec.is_plugin
    assert endpoint_of(spec) == "plugin:myplugin"
    assert endpoint_of(ModelSpec(id="myplugin/echo", base_url="http://h:1/")) == "http://h:1"
    assert plugin_providers(exclude=PROVIDERS) == ["broken", "missing", "myplugin"]
    assert not ModelSpec(id="openai/gpt-4o-mini").is_plugin  # a plugin cannot take a built-in


@pytest.mark.usefixtures("plugin")
def test_unknown_provider_error_lists_built_ins_and_plugins() -> None:
    with pytest.raises(ValidationError) as caught:
        ModelSpec(id="myplugn/echo")
    message = str(caught.value)
    assert "unknown provider 'myplugn'" in message
    assert "anthropic" in message and "openai-compatible" in message
    assert "myplugin" in message and "fairpanel.providers" in message


async def test_registry_builds_and_closes_the_plugin_client(plugin: Any) -> None:
    spec = ModelSpec(id="myplugin/echo", sampling=Sampling(seed=2))
    request = ModelRequest(
        model=spec.id,
        endpoint=endpoint_of(spec),
        messages=(Message(role="user", content="Write a short plan."),),
    )
    async with ModelRegistry() as registry:
        registry.check_credentials(spec)  # no api_key_env: nothing to check
        assert registry.unsupported_settings(spec, Sampling(temperature=0.2)) == ["seed"]
        client = await registry.client(spec)
        module = plugin()
        assert isinstance(client, LimitedClient)
        assert isinstance(client.inner, module.EchoClient)
        assert await registry.client(spec) is client  # the one asked about sampling
        reply = await client.complete(request)
    assert reply.text.startswith("Step 1:")
    calls = module.CALLS
    assert calls == [request]
    assert client.inner.closed


@pytest.mark.usefixtures("plugin")
async def test_a_broken_plugin_is_a_clear_error() -> None:
    async with ModelRegistry() as registry:
        with pytest.raises(PluginError, match=r"lacks unsupported\(sampling\)"):
            await registry.client(ModelSpec(id="broken/x"))
        with pytest.raises(PluginError, match=r"cannot load .*'missing'"):
            await registry.client(ModelSpec(id="missing/x"))


EXPERIMENT = panel_experiment("plugged", {"id": "myplugin/echo"})


def test_panel_runs_on_a_plugin_model(
    plugin: Any, cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = cli("run", str(write_experiment(EXPERIMENT)), "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = read_json(out / "summary.json")
    assert summary["trials_ok"] == summary["trials_total"] > 0
    assert summary["calls_made"] == len(plugin().CALLS) > 0


SECRET = "acme-key-DO-NOT-LEAK-123456"
PLUGIN_DOC = DOCS / "plugins.md"


async def test_the_documented_plugin_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/plugins.md's example, installed as written, against a stand-in ACME API."""
    source = re.findall(r"```python\n(.*?)```", PLUGIN_DOC.read_text("utf-8"), re.DOTALL)[0]
    install(
        tmp_path / "site",
        "fairpanel_acme",
        source,
        "[fairpanel.providers]\nacme = fairpanel_acme:create\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    monkeypatch.setenv("ACME_API_KEY", SECRET)
    sent: list[httpx.Request] = []
    statuses = iter([200, 503, 400])

    def acme(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        answer = {"text": '{"winner": "A"}', "input_tokens": 11, "output_tokens": 4}
        return httpx.Response(next(statuses), json=answer)

    real_client = httpx.AsyncClient
    transport = httpx.MockTransport(acme)
    monkeypatch.setattr(
        httpx, "AsyncClient", lambda **kwargs: real_client(transport=transport, **kwargs)
    )
    spec = ModelSpec(
        id="acme/judge-large", api_key_env="ACME_API_KEY", limits=EndpointLimits(max_retries=0)
    )
    schema = {"name": "pair_judgment", "schema": {"type": "object"}}
    request = ModelRequest(
        model=spec.id,
        messages=(Message(role="user", content="Judge."),),
        sampling=Sampling(temperature=0.2, seed=3),
        response_schema=schema,
    )
    try:
        async with ModelRegistry() as registry:
            registry.check_credentials(spec)
            assert registry.unsupported_settings(spec, Sampling(top_p=0.5, seed=1)) == [
                "top_p",
                "seed",
            ]
            client = await registry.client(spec)
            reply = await client.complete(request)
            assert (reply.text, reply.usage.prompt_tokens) == ('{"winner": "A"}', 11)
            for retryable in (True, False):
                with pytest.raises(ModelCallError) as caught:
                    await client.complete(request)
                assert caught.value.retryable is retryable
                assert SECRET not in str(caught.value)
    finally:
        sys.modules.pop("fairpanel_acme", None)
    body = json.loads(sent[0].content)
    assert body == {
        "model": "judge-large",
        "messages": [{"role": "user", "content": "Judge."}],
        "max_tokens": 512,
        "temperature": 0.2,
        "json_schema": {"type": "object"},
    }
    assert sent[0].url == "https://api.acme.example/v1/generate"
    assert sent[0].headers["authorization"] == f"Bearer {SECRET}"
