"""Recording one activity event per tool call, without ever failing or delaying the call much."""

from __future__ import annotations

from vault_recall.server.activity.events import event_from_result
from vault_recall.server.activity.writer import ActivityWriter, Call
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.config.config_file import ActivitySettings, activity_path, load_config
from vault_recall.server.errors import ConfigError


def activity_settings() -> ActivitySettings:
    try:
        return load_config().activity
    except ConfigError:
        return ActivitySettings()  # the call already reports the broken config; log anyway


def record_activity(writer: ActivityWriter, call: Call) -> None:
    """Hand one call's event to the writer (a call refused before it had a result is logged
    with the vault it would have read)."""
    settings = call.settings if call.settings is not None else activity_settings()
    vault = _vault_of(call.options) if call.result is None else None
    event = event_from_result(
        client=call.options.client,
        tool=call.tool,
        arguments=call.arguments,
        result=call.result,
        error=call.error,
        started=call.started,
        client_info=call.client_info,
        keep_query_text=settings.keep_query_text,
        vault=vault,
    )
    writer.submit(activity_path(), event, settings.retention_days, settings.max_events)


def _vault_of(options: ServeOptions) -> str | None:
    """The vault a call for these options reads now, by name (None when there is none)."""
    from vault_recall.server.config.call_scope import current_scope
    from vault_recall.server.vault.listing import vault_name

    vault = current_scope(options).vault
    return vault_name(vault) if vault is not None else None
