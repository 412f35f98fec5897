"""Imports the built-in tool packs so their decorators register them.

A pack imports its optional SDK (mcp) only when it is loaded, so these imports stay
cheap; one that fails is a bug and surfaces here instead of the pack going missing.
"""

from __future__ import annotations

from trialrun.tools import (  # noqa: F401
    browser_navigate,
    code_interpreter,
    db_query,
    file_write,
    http_request,
    image_generate,
    knowledge_graph,
    mcp,
    memory,
    pdf_extract,
    python_functions,
    replay,
    research,
    shell_exec,
    think,
    vault,
    web_search,
)
