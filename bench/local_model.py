"""Tokens per second of the embedded model: trialrun's `local` path vs llama-cpp-python.

Same prompt (a vault task with the vault tools, rendered with the model's chat template),
same JSON-schema constraint, temperature 0, same max tokens. Direct = llama-cpp-python's
own `create_completion(grammar=…)`; trialrun = `LocalModel.complete` (worker thread,
lazy grammar checks, timeouts, parsing). Also prints unconstrained direct decoding for
reference. Each run measures every side once; --runs or --repeats (at least 3) runs give
min/median/max per side with the load, and the trialrun/direct ratio paired run by run.
Usage: python bench/local_model.py [--runs 3] [--repeats 3] [--max-tokens 64]
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
import subprocess
import sys
import time

from _repeat import Series, add_repeats_arg, load_now

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
    add_repeats_arg(parser)
    args = parser.parse_args()
    if args.side:
        print(json.dumps(one_side(args.side, args.max_tokens)))
        return 0

    rates = {side: Series(f"{side}", "tok/s") for side in SIDES}
    ratio = Series("trialrun/direct, paired per run")
    counts: dict[str, int] = {}
    facts: dict = {}
    runs = max(args.runs, args.repeats, 3)
    for _ in range(runs):
        load = load_now()
        for side in SIDES:
            out = subprocess.run(
                [sys.executable, __file__, "--side", side, "--max-tokens", str(args.max_tokens)],
                capture_output=True, text=True, check=True, env=os.environ.copy(),
            )
            facts = json.loads(out.stdout.strip().splitlines()[-1])
            counts[side] = facts["tokens"]
            rate = facts["tokens"] / facts["seconds"] if facts["seconds"] else 0.0
            rates[side].add(rate, load)
        direct = rates["direct"].values[-1]
        ratio.add(rates["trialrun"].values[-1] / direct if direct else float("nan"), load)
    prompt_tokens, max_tokens = facts["prompt_tokens"], facts["max_tokens"]
    rates["direct"].name = f"llama-cpp-python (grammar, {counts['direct']} tokens)"
    rates["trialrun"].name = f"trialrun local (grammar, {counts['trialrun']} tokens)"
    rates["unconstrained"].name = "llama-cpp-python (no grammar, reference)"
    print(f"each side in its own process, alternating; {runs} runs; prompt tokens "
          f"{prompt_tokens}")
    for side in SIDES:
        print(f"  {rates[side].line('.1f')}")
    print(f"  {ratio.line('.2f')} (target ≥ 0.90 on the median)")
    result = {
        "model": "local",
        "prompt_tokens": prompt_tokens,
        "max_tokens": max_tokens,
        "runs": runs,
        "direct_tok_s": rates["direct"].as_json(),
        "trialrun_tok_s": rates["trialrun"].as_json(),
        "unconstrained_tok_s": rates["unconstrained"].as_json(),
        "ratio": ratio.as_json(),
        "target_met": ratio.median >= 0.9,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
