"""Property values as every reader gives them (the flat reading and YAML alike): the one type
the obsidian, recall and answers layers share for a property's value."""

from __future__ import annotations

PropertyValue = str | int | float | bool | None | list["PropertyValue"] | dict[str, "PropertyValue"]
