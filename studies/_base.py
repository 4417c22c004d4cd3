"""What a study is made of: a config, a design of keyed items, one item's run, an analysis.

The judge-panel protocol has its own config, design and runner in ``fairpanel.judging``. Every
other study (the two-student award audit, B-score, ...) is a ``Study`` subclass that the
generic runner drives with the same guarantees: strict config, calls through the run's cache,
a lazily enumerated design whose item keys hash everything that decides the item, resume,
concurrency, ``--max-failures``, summary and provenance files. A study writes only what is
particular to it.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fairpanel import report as report_pages
from fairpanel.agents import Execution, ModelSpec, Sampling, canonical_json, endpoint_of
from fairpanel.inputs import Location, Problem
from fairpanel.judging.experiment import Price

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.report import StudyPage
    from fairpanel.studies._context import StudyContext

__all__ = [
    "ItemFailedError",
    "ItemSpec",
    "ModelUse",
    "PlannedCall",
    "ResolvedModel",
    "ResultsReader",
    "Role",
    "Study",
    "StudyConfig",
    "path_from",
    "result_table",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResultsReader(BaseModel):
    """Base of a study's typed readers over its own results.json blocks (for its report).

    Lenient where configs are strict: fields the reader does not name are ignored, so a
    results file with more (or, with defaults, fewer) fields than the reader still reads.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)


class ModelUse(_Strict):
    """A model as one role of a study uses it: a name from ``models`` (or an id) and sampling."""

    model: str = Field(
        default="local/smollm2", description="A name from `models`, or a 'provider/model' id"
    )
    sampling: Sampling = Field(
        default=Sampling(), description="Merged over the model's own sampling settings"
    )


class ResolvedModel(_Strict):
    """A role's model as it goes into item specs (and so into their keys)."""

    model: str = Field(description="As configured: a name from `models` or an id")
    model_id: str
    endpoint: str
    sampling: Sampling


@dataclass(frozen=True)
class Role:
    """A role that calls a model: its name in records, where it is configured, and how."""

    name: str
    where: Location
    use: ModelUse


class StudyConfig(_Strict):
    """Fields every study file has. A study's config subclasses this and fixes ``study``."""

    study: str = Field(description="Which study the file describes")
    name: str = Field(default="study", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    seed: int = 0
    models: dict[str, ModelSpec] = Field(default_factory=dict)
    prices: dict[str, Price] = Field(
        default_factory=dict,
        description="USD per million tokens, keyed by model id ('openai/gpt-4o-mini')",
    )
    replicates: int = Field(
        default=1, ge=1, le=100, description="Every item runs this many times (separate calls)"
    )
    concurrency: int = Field(default=4, ge=1, le=256)
    execution: Execution = Field(
        default="online",
        description="'batch' sends every model whose provider has a batch API (openai, "
        "openai-compatible, anthropic) through it, at its batch price, every pending item at "
        "once; a model's own `execution` wins",
    )

    def roles(self) -> list[Role]:
        """Every role that calls a model (for credential checks, warnings and the manifest)."""
        return []

    def model_spec(self, reference: str) -> ModelSpec:
        return self.models.get(reference) or ModelSpec(id=reference)

    def resolve(self, use: ModelUse) -> ResolvedModel:
        spec = self.model_spec(use.model)
        return ResolvedModel(
            model=use.model,
            model_id=spec.id,
            endpoint=endpoint_of(spec),
            sampling=spec.sampling.merged(use.sampling),
        )

    def problems(self, base: Path) -> list[Problem]:
        """Problems the schema cannot see (unknown model names, files that must exist).

        ``base`` is the folder of the study file. Subclasses extend the list (call super()).
        """
        found: list[Problem] = []
        for role in self.roles():
            reference = role.use.model
            if reference in self.models:
                continue
            try:
                ModelSpec(id=reference)
            except ValidationError as exc:
                found.append(
                    (
                        (*role.where, "model"),
                        f"{reference!r} is neither a name in `models` nor a valid model id "
                        f"({exc.errors()[0]['msg']})",
                    )
                )
        return found

    def with_paths_from(self, base: Path) -> Self:
        """The config with file paths made absolute against ``base``, so later steps and the
        copy saved in the run folder do not depend on the working directory."""
        return self


@overload
def path_from(base: Path, path: str) -> str: ...


@overload
def path_from(base: Path, path: str | None) -> str | None: ...


def path_from(base: Path, path: str | None) -> str | None:
    """A path of a study file made absolute against the file's folder ``base`` (unset stays
    unset), for ``with_paths_from``."""
    if path is None:
        return None
    return str(Path(path) if Path(path).is_absolute() else base / path)


class ItemSpec(_Strict):
    """Everything that decides one item of a study; its hash is the item's key.

    Subclasses add their fields (and fix ``study`` and ``schema_version``). Put every input
    that changes what the item asks or how in here (models, sampling, prompt wording version,
    a digest of the data files, the replicate), so changing one makes a new item instead of
    silently reusing an old answer.
    """

    study: str
    schema_version: int = 1
    seed: int
    replicate: int = 0

    def key(self) -> str:
        payload = canonical_json(self.model_dump(mode="json"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PlannedCall:
    """One model call an item will make, for ``fairpanel estimate`` (no call is made).

    ``prompt_chars`` is the length of every message the call sends (the estimate counts four
    characters a token and assumes the answer uses its full ``max_tokens``). ``conditional``
    marks calls that happen only after some answers (a follow-up question after a choice), so
    the estimate is an upper bound for them. ``step`` is the call's place in its item's chain
    (0 for a call that waits on no other answer, 1 for one that reads a step-0 answer, ...):
    in batch mode each step of every item together is one batch, so the estimate counts the
    batches one after another as the deepest step plus one.
    """

    role: str
    model: ResolvedModel
    prompt_chars: int
    conditional: bool = False
    step: int = 0


class ItemFailedError(RuntimeError):
    """Raised by ``run_item`` when an item cannot be completed; stored as a failed item.

    Model call failures (``ModelCallError``) are recorded the same way without wrapping. An
    answer the study cannot read is not a failure: record it as such in the item's result.
    """


ConfigT = TypeVar("ConfigT", bound=StudyConfig)
ItemT = TypeVar("ItemT", bound=ItemSpec)


class Study(ABC, Generic[ConfigT, ItemT]):
    """A study the generic runner can drive. Subclass, set the class variables, register it
    in ``fairpanel.studies._registry``.

    ``items`` enumerates the design lazily and deterministically (same config, same items in
    the same order). ``run_item`` makes the item's calls through ``context.ask`` and returns a
    JSON-able result dict, stored with the item. ``analyze`` turns every stored record into
    the results dict written to ``results.json``; put display tables under ``"tables"`` (see
    ``result_table``) so the CLI and the report can show them without knowing the study.
    ``report`` turns those results into the study's part of its HTML report.
    """

    name: ClassVar[str]
    config_model: ClassVar[type[StudyConfig]]
    description: ClassVar[str] = ""

    def __init__(self, config: ConfigT) -> None:
        self.config = config

    @abstractmethod
    def items(self) -> Iterator[ItemT]: ...

    @abstractmethod
    async def run_item(self, item: ItemT, context: StudyContext) -> dict[str, Any]: ...

    @abstractmethod
    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        """The analysis of every stored record (failed ones included, to be counted)."""

    def planned_calls(self, item: ItemT) -> list[PlannedCall]:
        """The calls ``item`` will make, with token estimates; used by ``fairpanel estimate``."""
        return []

    def manifest(self) -> dict[str, Any]:
        """Study-specific provenance for ``manifest.json`` (e.g. digests of data files)."""
        return {}

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        """The study's verdict card and sections of its report, from what ``analyze`` wrote
        (read back from results.json, so possibly from an older or unfinished run: never raise
        on a missing block, say it is missing).

        By default a plain card; the page shows every display table either way (those no
        section holds under "Other tables"). Override to bring figures and a verdict.
        """
        return report_pages.tables_page(results)  # the report's face: loads at report time


def result_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    note: str | None = None,
) -> dict[str, Any]:
    """A display table in ``results.json`` (plain JSON: the CLI and the report render it)."""
    return {"title": title, "columns": list(columns), "rows": [list(r) for r in rows], "note": note}
