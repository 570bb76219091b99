"""Our one entry in a client's config file, in any of the three formats: parse the file as the
client would, set or remove our entry leaving every other byte as it was, and check the
result changed nothing else."""

from __future__ import annotations

import contextlib
import json
import tomllib
from collections.abc import Callable, Iterator
from typing import Any, assert_never

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from vault_recall.app.app_errors import EditError, JsonEditError, TomlEditError, YamlEditError
from vault_recall.app.clients import json_edit, toml_edit, yaml_edit
from vault_recall.app.clients.catalogue import SERVER_NAME, ClientSpec

# A new Continue config needs these besides our server (its schema requires them).
CONTINUE_HEADER = {"name": "Local config", "version": "1.0.0", "schema": "v1"}


@contextlib.contextmanager
def refusing(what: str) -> Iterator[None]:
    """Any failure to edit the file becomes one EditError sentence: it was left untouched."""
    try:
        yield
    except (JsonEditError, TomlEditError, YamlEditError) as exc:
        raise EditError(str(exc)) from None
    except (ValueError, TypeError, KeyError, IndexError, YAMLError, RecursionError) as exc:
        problem = f"{type(exc).__name__}: {exc}"[:200]
        sentence = f"{what} is laid out in a way this tool cannot edit safely ({problem}); it was left untouched"
        raise EditError(sentence) from None


def parse(spec: ClientSpec, text: str, what: str) -> dict[str, Any]:
    """The file as plain data, with the strict parser a client would use."""
    try:
        match spec.format:
            case "json":
                return json_edit.parse_object(text, what, spec.jsonc)
            case "toml":
                return tomllib.loads(text)
            case "yaml":
                loaded = YAML(typ="safe", pure=True).load(text) if text.strip() else None
            case _:
                assert_never(spec.format)
    except JsonEditError as exc:
        raise EditError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise EditError(f"{what} is not valid TOML ({exc}), so it was left untouched") from None
    except YAMLError as exc:
        raise EditError(f"{what} is not valid YAML ({str(exc).splitlines()[0]}), so it was left untouched") from None
    except RecursionError:
        raise EditError(f"{what} nests too deeply to be a config file, so it was left untouched") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise EditError(f"{what} does not hold a mapping at the top, so it was left untouched")
    return loaded


def current_entry(spec: ClientSpec, text: str, what: str) -> dict[str, Any] | None:
    """Our entry as the file has it now (plain data), or None."""
    data = parse(spec, text, what)
    holder = data.get(spec.container)
    if spec.is_list:
        items = holder if isinstance(holder, list) else []
        found = next((i for i in items if isinstance(i, dict) and i.get("name") == SERVER_NAME), None)
    else:
        found = holder.get(SERVER_NAME) if isinstance(holder, dict) else None
    return found if isinstance(found, dict) else None


def _line_endings_kept(edit: Callable[[str], str], text: str) -> str:
    """Run a line-based edit on LF text and give a CRLF file its line endings back."""
    if "\r\n" not in text or text.count("\n") != text.count("\r\n"):
        return edit(text)
    lf = text.replace("\r\n", "\n")
    after = edit(lf)
    return text if after == lf else after.replace("\n", "\r\n")


def set_ours(spec: ClientSpec, text: str, entry: dict[str, Any], what: str) -> str:
    """`text` with our entry set to `entry`."""
    with refusing(what):
        match spec.format:
            case "json":
                return json_edit.set_member(text, spec.container, SERVER_NAME, entry, what, spec.jsonc)
            case "toml":
                return toml_edit.set_table(text, spec.container, SERVER_NAME, entry, what)
            case "yaml":
                if not text.strip() and spec.id == "continue":
                    text = text + "".join(f"{key}: {value}\n" for key, value in CONTINUE_HEADER.items())
                return _line_endings_kept(
                    lambda lf: yaml_edit.set_entry(
                        lf, spec.container, SERVER_NAME, entry, is_list=spec.is_list, what=what
                    ),
                    text,
                )
            case _:
                assert_never(spec.format)


def remove_ours(spec: ClientSpec, text: str, what: str) -> str:
    """`text` without our entry."""
    with refusing(what):
        match spec.format:
            case "json":
                return json_edit.remove_member(text, spec.container, SERVER_NAME, what, spec.jsonc)
            case "toml":
                return toml_edit.remove_table(text, spec.container, SERVER_NAME, what)
            case "yaml":
                return _line_endings_kept(
                    lambda lf: yaml_edit.remove_entry(lf, spec.container, SERVER_NAME, is_list=spec.is_list, what=what),
                    text,
                )
            case _:
                assert_never(spec.format)


def remove_empty_container(spec: ClientSpec, text: str, what: str) -> str:
    """`text` without our container when it holds nothing (it was made for our entry)."""
    with refusing(what):
        match spec.format:
            case "json":
                holder = json_edit.parse_object(text, what, spec.jsonc).get(spec.container)
                return json_edit.remove_top_member(text, spec.container, what, spec.jsonc) if holder == {} else text
            case "toml":
                return toml_edit.remove_container_if_empty(text, spec.container, what)
            case "yaml":
                return _line_endings_kept(
                    lambda lf: yaml_edit.remove_container_if_empty(lf, spec.container, what), text
                )
            case _:
                assert_never(spec.format)


def without_ours(spec: ClientSpec, data: dict[str, Any]) -> dict[str, Any]:
    """The file's data with our entry (and an emptied container, a header we add) taken out.

    Copied only as deep as the change goes: a client's file can be megabytes of other data.
    """
    data = dict(data)
    holder = data.get(spec.container)
    if spec.is_list and isinstance(holder, list):
        holder = [i for i in holder if not (isinstance(i, dict) and i.get("name") == SERVER_NAME)]
        data[spec.container] = holder
    elif isinstance(holder, dict):
        holder = {key: value for key, value in holder.items() if key != SERVER_NAME}
        data[spec.container] = holder
    if spec.container in data and holder in ({}, [], None):
        del data[spec.container]
    for key in CONTINUE_HEADER if spec.id == "continue" else ():
        if data.get(key) == CONTINUE_HEADER[key]:
            data.pop(key)
    return data


def verify(spec: ClientSpec, before: str, after: str, wanted: dict[str, Any] | None, what: str) -> None:
    """Refuse any edit that changed something besides our entry (the last line of defence)."""
    if without_ours(spec, parse(spec, before, what)) != without_ours(spec, parse(spec, after, what)):
        raise EditError(
            f"{what} is laid out in a way this tool cannot edit without changing other settings; it was left untouched"
        )
    if wanted is not None and current_entry(spec, after, what) != json.loads(json.dumps(wanted)):
        raise EditError(f"{what} could not be given our entry cleanly; it was left untouched")
