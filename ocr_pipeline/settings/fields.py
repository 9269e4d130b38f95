"""How a setting is declared (`option()`) and the one parser that reads any settings class from the environment.

No Dagster here, and nothing read at import: `read_env` reads the variables when a caller asks.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from typing import Any, TypeVar

ENV_PREFIX = "OCR_PIPELINE_"


def option(
    default: Any,
    help: str,  # noqa: A002 - the word argparse uses
    *,
    env: str | None = None,
    flag: bool | str = True,
    dagster: bool = True,
    secret: bool = False,
    env_default: Callable[[], Any] | None = None,
) -> Any:
    """A dataclass field carrying its help text, its variable (`OCR_PIPELINE_<env>`) and where it surfaces.

    `flag`: a CLI flag of the field's name, another name for it (a string), or none (False). `<ROLE>` in `env`
    is filled in by `read_env(..., role=...)` (the S3 clients' per-bucket variables).
    """
    meta: dict[str, Any] = {"help": help, "env": ENV_PREFIX + env if env else None, "flag": flag, "dagster": dagster}
    meta.update(secret=secret, env_default=env_default)
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def fields_of(cls: type) -> Iterator[dataclasses.Field[Any]]:
    """The declared fields of a settings class."""
    yield from dataclasses.fields(cls)


def field_types(cls: type) -> dict[str, Any]:
    """Field name -> evaluated type (the annotations above are strings under `from __future__ import annotations`)."""
    return typing.get_type_hints(cls)


def declared_default(spec: dataclasses.Field[Any]) -> Any:
    """A field's declared default (a fresh copy for list and dict fields)."""
    if spec.default is dataclasses.MISSING and spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    return spec.default


def base_type(kind: Any) -> Any:
    """`X` of `X | None`; any other type as it is."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return next(arg for arg in typing.get_args(kind) if arg is not type(None))
    return kind


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def _parse_mapping(text: str) -> dict[str, str]:
    """`{"k": "v"}` JSON or `k=v,k2=v2`."""
    if text.startswith("{"):
        return {str(k): str(v) for k, v in json.loads(text).items()}
    pairs = [p.split("=", 1) for p in text.split(",") if p.strip()]
    if any(len(p) != 2 for p in pairs):
        raise ValueError(f"expected k=v,k2=v2 or a JSON object, got {text!r}")
    return {k.strip(): v.strip() for k, v in pairs}


def _parse_list(kind: Any, text: str) -> list[Any]:
    """A JSON array (`[...]`), or comma-separated text items (blank items dropped)."""
    if text.startswith("["):
        value = json.loads(text)
        if not isinstance(value, list):
            raise ValueError(f"expected a JSON array, got {text!r}")
        return value
    if typing.get_args(kind) not in ((), (str,)):
        raise ValueError(f"expected a JSON array, got {text!r}")
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_env_value(kind: Any, raw: str) -> Any:
    """A variable's text as the field's type, the same syntax for every setting.

    Booleans: 1/true/yes/on or 0/false/no/off (any case; anything else is an error). Lists: a JSON array or
    comma-separated items. Mappings: a JSON object or k=v,k2=v2.
    """
    base = base_type(kind)
    text = raw.strip()
    if base is bool:
        if text.lower() in TRUE_WORDS:
            return True
        if text.lower() in FALSE_WORDS:
            return False
        raise ValueError(f"expected one of {'/'.join(TRUE_WORDS)} or {'/'.join(FALSE_WORDS)}, got {raw!r}")
    if base is int or base is float:
        return base(text)
    if typing.get_origin(base) is list:
        return _parse_list(base, text)
    if typing.get_origin(base) is dict:
        return _parse_mapping(text)
    return raw


def variable_of(spec: dataclasses.Field[Any], role: str | None = None) -> str | None:
    """The field's variable, `<ROLE>` filled in (`OCR_PIPELINE_INPUT_ENDPOINT_URL`); None when it has none."""
    name = spec.metadata.get("env")
    if name and "<ROLE>" in name:
        if not role:
            raise ValueError(f"{name} needs a role")
        name = name.replace("<ROLE>", role.upper())
    return name


def values_from_env(
    cls: type, environ: Mapping[str, str] | None = None, *, role: str | None = None, env_defaults: bool = True
) -> dict[str, Any]:
    """Field values from their variables that are set (an empty one counts as unset); with `env_defaults`,
    unset ones take their env default. ValueError names the variable whose text does not parse."""
    env = os.environ if environ is None else environ
    kinds = field_types(cls)
    values: dict[str, Any] = {}
    for spec in fields_of(cls):
        variable = variable_of(spec, role)
        raw = env.get(variable) if variable else None
        if raw is not None and raw.strip() != "":
            try:
                values[spec.name] = parse_env_value(kinds[spec.name], raw)
            except ValueError as exc:
                raise ValueError(f"{variable}: {exc}") from exc
        elif env_defaults and spec.metadata.get("env_default") is not None:
            values[spec.name] = spec.metadata["env_default"]()
    return values


SettingsT = TypeVar("SettingsT")


def read_env(cls: type[SettingsT], environ: Mapping[str, str] | None = None, *, role: str | None = None) -> SettingsT:
    """The one reader of the environment: a settings class from its variables, declared defaults for the rest."""
    return cls(**values_from_env(cls, environ, role=role))
