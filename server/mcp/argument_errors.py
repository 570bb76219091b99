"""Turn argument-schema failures into one sentence a model can act on.

The SDK validates arguments against each tool's input schema before the tool runs and would
report pydantic's multi-line text (with a web link).  These sentences say the same as
arguments.py does for the checks it makes itself.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from vault_recall.server.errors import show_value


def unknown_arguments(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """A sentence naming arguments the tool does not take (a misspelt `budjet` would otherwise
    be ignored silently), or None."""
    known = list(schema.get("properties", {}))
    extra = sorted(set(arguments) - set(known))
    if not extra:
        return None
    takes = ", ".join(known) if known else "no arguments"
    names = ", ".join(repr(e) for e in extra)
    return f"{tool} does not take {names}; it takes {takes}"


def describe_validation_error(error: ValidationError, schema: dict[str, Any]) -> str:
    """One sentence for the first problem pydantic found."""
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else "arguments"
    spec = schema.get("properties", {}).get(name, {})
    kind = first["type"]
    if kind == "missing":
        return f"{name} is required"
    got = f"; got {show_value(first.get('input'))}" if "input" in first else ""
    if "minimum" in spec and "maximum" in spec:
        return f"{name} must be a whole number from {spec['minimum']} to {spec['maximum']}{got}"
    if "enum" in spec:
        allowed = " or ".join(repr(v) for v in spec["enum"])
        return f"{name} must be {allowed}{got}"
    types = {spec.get("type")} | {option.get("type") for option in spec.get("anyOf", [])}
    optional = " (or left out)" if "null" in types else ""
    if "string" in types:
        return f"{name} must be text{optional}{got}"
    if "integer" in types:
        return f"{name} must be a whole number{optional}{got}"
    return f"{name} is not valid: {first['msg']}{got}"
