"""Tokens per second of the embedded model: trialrun's `local` path vs llama-cpp-python.

Same prompt (a vault task with the vault tools, rendered with the model's chat template),
same JSON-schema constraint, temperature 0, same max tokens. Direct = llama-cpp-python's
own `create_completion(grammar=…)`; trialrun = `LocalModel.complete` (worker thread,
lazy grammar checks, timeouts, parsing). Also prints unconstrained direct decoding for
reference. Usage: python bench/local_model.py [--runs 3] [--max-tokens 64]
The last line is one JSON object.

Each side runs in a process of its own (`--side NAME`, one after another, the sides
alternating run by run): in one process, llama.cpp's OpenMP threads of one side's model
would keep spinning while the other decodes, and the ratio measured that, not decoding.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
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


SIDES = ("direct", "trialrun", "unconstrained")


def one_side(side: str, max_tokens_arg: int) -> dict:
    """Load the model, warm up, decode once on `side`; tokens, seconds, prompt tokens."""
    model = create_model("local")
    params = CompletionParams(max_tokens=max_tokens_arg, timeout_s=600)
    asyncio.run(model.complete(MESSAGES, TOOLS, params))  # load + warm up
    tokens, grammar, max_tokens = model.prepare(MESSAGES, TOOLS, params)
    llama = model._llama
    llama.reset()  # no prefix reuse: each side evaluates the full prompt
    started = time.perf_counter()
    if side == "trialrun":
        completion = asyncio.run(model.complete(MESSAGES, TOOLS, params))
        n = completion.usage.completion
    else:
        out = llama.create_completion(
            prompt=tokens,
            max_tokens=max_tokens,
            temperature=0.0,
            grammar=grammar if side == "direct" else None,
            seed=0,
        )
        n = out["usage"]["completion_tokens"]
    seconds = time.perf_counter() - started
    return {"side": side, "tokens": n, "seconds": seconds, "prompt_tokens": len(tokens),
            "max_tokens": max_tokens}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)  # a child process
    args = parser.parse_args()
    if args.side:
        print(json.dumps(one_side(args.side, args.max_tokens)))
        return 0

    rates: dict[str, list[float]] = {side: [] for side in SIDES}
    counts: dict[str, int] = {}
    facts: dict = {}
    for _ in range(args.runs):
        for side in SIDES:
            out = subprocess.run(
                [sys.executable, __file__, "--side", side, "--max-tokens", str(args.max_tokens)],
                capture_output=True, text=True, check=True, env=os.environ.copy(),
            )
            facts = json.loads(out.stdout.strip().splitlines()[-1])
            counts[side] = facts["tokens"]
            rates[side].append(facts["tokens"] / facts["seconds"] if facts["seconds"] else 0.0)
    prompt_tokens, max_tokens = facts["prompt_tokens"], facts["max_tokens"]
    median = {k: statistics.median(v) for k, v in rates.items()}
    ratio = median["trialrun"] / median["direct"] if median["direct"] else float("nan")
    print("each side in its own process, alternating, median of the runs")
    print(f"prompt tokens:                {prompt_tokens}")
    print(f"llama-cpp-python (grammar):   {median['direct']:.1f} tok/s ({counts['direct']} tokens)")
    ours_rate = median["trialrun"]
    print(f"trialrun local (grammar):     {ours_rate:.1f} tok/s ({counts['trialrun']} tokens)")
    print(f"llama-cpp-python (no grammar): {median['unconstrained']:.1f} tok/s (reference)")
    print(f"ratio trialrun/direct:        {ratio:.2f} (target >= 0.90)")
    result = {
        "model": "local",
        "prompt_tokens": prompt_tokens,
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
