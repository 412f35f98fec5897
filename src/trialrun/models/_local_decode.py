"""Greedy decoding under a grammar, checking the grammar lazily.

llama-cpp-python applies the grammar sampler to the whole vocabulary at every step
(~50k candidate tokens checked against the grammar), which makes constrained decoding
several times slower than free decoding. At temperature 0 the result is the same if we
first take the arg-max token and ask the grammar about that one token only, falling back
to the full vocabulary when it is rejected (what llama.cpp's own `common_sampler` does).
Inside free strings the arg-max is almost always allowed, so most steps cost one check.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any, cast


def common_prefix(a: Any, b: list[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if int(x) != y:
            break
        count += 1
    return count


def evaluate_prompt(llama: Any, tokens: list[int]) -> int:
    """Evaluate `tokens`, reusing the KV cache of the longest common prefix; returns its length."""
    prefix = common_prefix(llama._input_ids, tokens)
    if prefix >= len(tokens):
        prefix = len(tokens) - 1  # re-evaluate one token to get fresh logits
    if prefix > 0 and llama._ctx.kv_cache_seq_rm(-1, prefix, -1):
        llama.n_tokens = prefix
    else:
        llama.reset()
        prefix = 0
    llama.eval(tokens[prefix:])
    return prefix


def greedy_constrained(
    llama: Any,
    grammar: Any,
    max_tokens: int,
    should_stop: Callable[[], bool],
) -> tuple[list[int], str]:
    """Decode after `evaluate_prompt`: (new tokens, finish reason "stop" | "length" | "abort")."""
    # the optional `local` extra, loaded when a local model is made
    import llama_cpp as C
    import numpy as np
    from llama_cpp._internals import LlamaTokenDataArray

    vocab = llama._model.vocab
    n_vocab = llama.n_vocab()
    sampler = None
    if grammar is not None:
        sampler = C.llama_sampler_init_grammar(
            vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
    single = (C.llama_token_data * 1)()
    single_array = C.llama_token_data_array(
        data=ctypes.cast(single, C.llama_token_data_p), size=1, selected=-1, sorted=False
    )
    full: LlamaTokenDataArray | None = None
    out: list[int] = []
    finish = "length"
    try:
        for _ in range(max_tokens):
            logits = np.ctypeslib.as_array(
                C.llama_get_logits_ith(llama._ctx.ctx, -1), shape=(n_vocab,)
            )
            token = int(np.argmax(logits))
            if sampler is not None:
                # llama_cpp annotates the field as c_int32; ctypes fields take an int
                single[0].id = cast(Any, token)
                single[0].logit = float(logits[token])
                single[0].p = 0.0
                single_array.size = 1
                single_array.selected = -1
                C.llama_sampler_apply(sampler, ctypes.byref(single_array))
                if not np.isfinite(single[0].logit):  # rejected: ask about every token
                    if full is None:
                        full = LlamaTokenDataArray(n_vocab=n_vocab)
                    full.copy_logits(logits)
                    C.llama_sampler_apply(sampler, ctypes.byref(full.candidates))
                    size = int(full.candidates.size)
                    best = int(np.argmax(full.candidates_data.logit[:size]))
                    if not np.isfinite(full.candidates_data.logit[best]):
                        finish = "stop"  # nothing allowed: the grammar is complete
                        break
                    token = int(full.candidates_data.id[best])
                C.llama_sampler_accept(sampler, token)
            if C.llama_vocab_is_eog(vocab, token):
                finish = "stop"
                break
            out.append(token)
            if should_stop():
                finish = "abort"
                break
            llama.eval([token])
    finally:
        if sampler is not None:
            C.llama_sampler_free(sampler)
    return out, finish
