"""trialrun: measure how reliably an LLM agent does the right thing, k tries out of k."""

__version__ = "0.1.0"
