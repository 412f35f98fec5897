"""Tokens per second of the embedded model: trialrun's `local` path vs llama-cpp-python.

Same prompt (a vault task with the vault tools, rendered with the model's chat template),
same JSON-schema constraint, temperature 0, same max tokens. Direct = llama-cpp-python's
own `create_completion(grammar=…)`; trialrun = `LocalModel.complete` (worker thread,
lazy grammar checks, timeouts, parsing). Also prints unconstrained direct decoding for
reference. Usage: python bench/local_model.py [--runs 3] [--max-tokens 64]
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time

from trialrun.models import CompletionParams, create_model

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
    }
    for name, description in [
        ("read_file", "Read a note."),
        ("list_files", "List the files in a folder."),
        ("delete_file", "Delete a file."),
    ]
]
MESSAGES = [
    {"role": "system", "content": "You are an assistant working in the user's vault."},
    {"role": "user", "content": "Summarise every note in the projects folder in detail."},
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()

    model = create_model("local")
    params = CompletionParams(max_tokens=args.max_tokens, timeout_s=600)
    asyncio.run(model.complete(MESSAGES, TOOLS, params))  # load + warm up
    tokens, grammar, max_tokens = model.prepare(MESSAGES, TOOLS, params)
    llama = model._llama

    def direct(constrained: bool) -> tuple[int, float]:
        llama.reset()  # no prefix reuse: each side evaluates the full prompt
        started = time.perf_counter()
        out = llama.create_completion(
            prompt=tokens,
            max_tokens=max_tokens,
            temperature=0.0,
            grammar=grammar if constrained else None,
            seed=0,
        )
        return out["usage"]["completion_tokens"], time.perf_counter() - started

    def ours() -> tuple[int, float]:
        llama.reset()
        started = time.perf_counter()
        completion = asyncio.run(model.complete(MESSAGES, TOOLS, params))
        return completion.usage.completion, time.perf_counter() - started

    rates: dict[str, list[float]] = {"direct": [], "trialrun": [], "unconstrained": []}
    counts: dict[str, int] = {}
    for _ in range(args.runs):
        for name, fn in (
            ("direct", lambda: direct(True)),
            ("trialrun", ours),
            ("unconstrained", lambda: direct(False)),
        ):
            n, seconds = fn()
            counts[name] = n
            rates[name].append(n / seconds if seconds > 0 else 0.0)
    median = {k: statistics.median(v) for k, v in rates.items()}
    ratio = median["trialrun"] / median["direct"] if median["direct"] else float("nan")
    print(f"prompt tokens:                {len(tokens)}")
    print(f"llama-cpp-python (grammar):   {median['direct']:.1f} tok/s ({counts['direct']} tokens)")
    ours_rate = median["trialrun"]
    print(f"trialrun local (grammar):     {ours_rate:.1f} tok/s ({counts['trialrun']} tokens)")
    print(f"llama-cpp-python (no grammar): {median['unconstrained']:.1f} tok/s (reference)")
    print(f"ratio trialrun/direct:        {ratio:.2f} (target >= 0.90)")
    result = {
        "model": "local",
        "prompt_tokens": len(tokens),
        "max_tokens": max_tokens,
        "runs": args.runs,
        "direct_tok_s": round(median["direct"], 2),
        "trialrun_tok_s": round(median["trialrun"], 2),
        "unconstrained_tok_s": round(median["unconstrained"], 2),
        "ratio": round(ratio, 3),
        "target_met": ratio >= 0.9,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
