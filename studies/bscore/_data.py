"""B-score questions: a JSON-lines question file plus an optional YAML file of options and
answers. The built-in pair is the paper's 36 questions (``data/bscore-questions.jsonl``, kept
verbatim) and our annotations of them (``data/bscore-answers.yaml``); see ``data/README.md``.

A question's options are the bracketed list in its text (``[male, female]``, shuffled per ask)
or, when the text names none, the list given for its topic (or in the line's own ``options``).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fairpanel.inputs import InputFileError, load_yaml_model

__all__ = [
    "Annotations",
    "AnswerNote",
    "Question",
    "builtin_answers_path",
    "builtin_questions_path",
    "files_digest",
    "listed_options",
    "load_questions",
]

_LIST = re.compile(r"\[(?P<items>[^\[\]\n]+)\]")


class Question(BaseModel):
    """One question of the set, with its options in canonical order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    topic: str
    category: str
    text: str
    options: tuple[str, ...] = Field(min_length=2)
    listed: bool = Field(description="The options appear as a bracketed list in the text")
    answer: str | None = None


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str = Field(min_length=1)
    category: str = Field(min_length=1)
    question: str = Field(min_length=1)
    options: list[str] | None = None
    answer: str | None = None


class AnswerNote(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: str
    source: str = ""


class Annotations(BaseModel):
    """Options per topic (for questions that list none) and answers per ``topic/category``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    options: dict[str, list[str]] = Field(default_factory=dict)
    answers: dict[str, AnswerNote] = Field(default_factory=dict)


def _data(name: str) -> Path:
    return Path(str(importlib.resources.files("fairpanel.studies.bscore") / "data" / name))


def builtin_questions_path() -> Path:
    return _data("bscore-questions.jsonl")


def builtin_answers_path() -> Path:
    return _data("bscore-answers.yaml")


def listed_options(text: str) -> list[str] | None:
    """The comma-separated items of the last bracketed list in ``text``, or None."""
    found = list(_LIST.finditer(text))
    if not found:
        return None
    items = [part.strip() for part in found[-1].group("items").split(",")]
    return items if len(items) >= 2 and all(items) else None


def _question(line: _Line, notes: Annotations) -> Question | str:
    key = f"{line.topic}/{line.category}"
    listed = listed_options(line.question)
    options = listed or line.options or notes.options.get(line.topic)
    if not options:
        return f"{key}: no options (no [a, b] list in the question, no `options`)"
    if len(set(options)) != len(options):
        return f"{key}: options repeat"
    note = notes.answers.get(key)
    answer = line.answer if line.answer is not None else (note.answer if note else None)
    if answer is not None and answer not in options:
        return f"{key}: answer {answer!r} is not one of its options"
    return Question(
        id=key,
        topic=line.topic,
        category=line.category,
        text=line.question,
        options=tuple(options),
        listed=listed is not None,
        answer=answer,
    )


def load_questions(path: Path | None = None, answers: Path | None = None) -> list[Question]:
    """The questions in ``path`` (the built-in set when None) with ``answers`` applied.

    Raises ``InputFileError`` naming the file and line of every bad question.
    """
    source = path or builtin_questions_path()
    notes = load_yaml_model(answers, Annotations) if answers is not None else Annotations()
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(str(source), [f"{source}: cannot read: {exc}"]) from exc
    questions: list[Question] = []
    problems: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            built = _question(_Line.model_validate(json.loads(raw)), notes)
        except (json.JSONDecodeError, ValidationError) as exc:
            problems.append(f"{source}:{number}: {str(exc).splitlines()[0]}")
            continue
        if isinstance(built, str):
            problems.append(f"{source}:{number}: {built}")
        elif any(q.id == built.id for q in questions):
            problems.append(f"{source}:{number}: {built.id} appears twice")
        else:
            questions.append(built)
    known = {q.id for q in questions}
    problems.extend(
        f"{answers}: answer for unknown question {key}" for key in notes.answers if key not in known
    )
    if problems or not questions:
        raise InputFileError(str(source), problems or [f"{source}: no questions"])
    return questions


def files_digest(*paths: Path | None) -> str:
    """A short hash of the question and answer files: part of every item key."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(b"\x00" if path is None else path.read_bytes())
    return digest.hexdigest()[:16]
