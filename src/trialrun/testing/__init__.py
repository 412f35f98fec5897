"""Behavioral evals as pytest tests (work in progress)."""
