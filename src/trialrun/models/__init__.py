"""Model clients behind one async protocol; see `Model`."""

from trialrun.core import redact
from trialrun.models._body import JsonTooComplex, parse_json
from trialrun.models._limits import ReadLimits, mib
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
from trialrun.models._settings import ProviderSettings
from trialrun.models._tool_calls import assistant_message
from trialrun.models._types import (
    Completion,
    CompletionParams,
    ConstraintRejected,
    Message,
    Model,
    ReplyConstraint,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "JsonTooComplex",
    "ProviderSettings",
    "ReadLimits",
    "RetryPolicy",
    "MODEL_PROVIDERS",
    "Completion",
    "CompletionParams",
    "ConstraintRejected",
    "Message",
    "Model",
    "ModelSpec",
    "ReplyConstraint",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "assistant_message",
    "create_model",
    "is_unpinned",
    "mib",
    "model_provider",
    "parse_json",
    "parse_model_spec",
    "redact",
    "slugify",
]
