"""Model clients behind one async protocol; see `Model`."""

from trialrun.models._redact import redact
from trialrun.models._registry import (
    MODEL_PROVIDERS,
    ModelSpec,
    create_model,
    is_unpinned,
    model_provider,
    parse_model_spec,
    slugify,
)
from trialrun.models._retry import RetryPolicy
from trialrun.models._types import (
    Completion,
    CompletionParams,
    Message,
    Model,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "RetryPolicy",
    "MODEL_PROVIDERS",
    "Completion",
    "CompletionParams",
    "Message",
    "Model",
    "ModelSpec",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "create_model",
    "is_unpinned",
    "model_provider",
    "parse_model_spec",
    "redact",
    "slugify",
]
