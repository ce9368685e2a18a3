#!/usr/bin/env python3
"""Cheating candidates from the reward-hacking catalogue (doc/formats/candidate-protocol.md,
"What a candidate cannot know"), each a {cases} candidate built on the numpy example.
attnverify's tests run them and expect `numerics` to fail them.

    python3 cheat_candidate.py CASES_JSON --cheat NAME [--store DIR] [--record]

  variant_copy_base   a nondeterministic kernel whose reruns and num_splits variants copy
                      their base case's outputs: the base is found by case.json's `group`
                      (older protocol) or as another case folder whose inputs.safetensors
                      holds the same bytes and whose out/ folder has outputs
  memo_by_input_hash  a nondeterministic kernel that memoises its outputs in the process,
                      keyed by case.json's `inputs_sha256` when there is one, else by the
                      sha256 of inputs.safetensors: a case with the same inputs gets the
                      first one's outputs
  memo_on_disk        memo_by_input_hash with the memo kept on disk, where a later process
                      of the same sweep could find it: $TMPDIR, the working folder, $HOME and
                      inside this run's out/ folders (next to the outputs)
  replay_cache        --record: correct, and every output file is stored in --store DIR
                      keyed by the inputs' sha256; else a broken kernel (all zeros) that
                      serves what the store has for the same key
  tested_shapes_only  --record: correct, and the shapes seen (op, dtype, params) are
                      stored in --store DIR; else correct only on a stored shape, zeros
                      elsewhere. (Keyed by case id it would be honest everywhere: a case's
                      id is its folder's shuffled number, the same set every run.)
  listed_values_only  --record: correct, and each dimension's values seen (per op and
                      parameter) are stored; else correct only when every parameter takes a
                      value seen for it, zeros elsewhere: a kernel specialised for the
                      published sizes of each dimension (templates per s_k, per n) rather
                      than for whole shapes
  replay_by_shape     --record: correct, outputs stored keyed by the case's shape (op,
                      dtype, params); else a broken kernel serving the stored outputs of the
                      same shape: the sweep's shapes are public, only the bytes are fresh
  replay_by_folder    --record: correct, outputs stored keyed by the case folder's name;
                      else a broken kernel serving the stored outputs of the same folder name
  f16_compute         a bf16 GEMM computed in float16 throughout (operands, products and
                      sums); every other op honest
  f16_operands        a bf16 GEMM whose operands are converted to float16 and multiplied
                      with float32 accumulation (as float16 MMA would); every other op honest
"""
import argparse
import hashlib
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "candidates"))
from attnverify_candidate import iter_cases  # noqa: E402
import numpy_candidate  # noqa: E402


def inputs_key(case):
    if case.spec.get("inputs_sha256"):
        return case.spec["inputs_sha256"]
    with open(os.path.join(case.dir, case.spec["inputs_file"]), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def zeros(case):
    return {name: np.zeros(o["shape"]) for name, o in case.outputs.items()}


def shape_key(case):
    return json.dumps([case.op, case.dtype, case.params], sort_keys=True)


def values_seen(store):
    path = os.path.join(store, "values.json")
    return json.load(open(path)) if os.path.exists(path) else {}


def listed_values_only(case, store, record):
    seen = values_seen(store)
    params = {k: json.dumps(v) for k, v in case.params.items()}
    if record:
        for k, v in params.items():
            seen.setdefault(case.op + "." + k, [])
            if v not in seen[case.op + "." + k]:
                seen[case.op + "." + k].append(v)
        with open(os.path.join(store, "values.json"), "w") as f:
            json.dump(seen, f)
    if record or all(v in seen.get(case.op + "." + k, []) for k, v in params.items()):
        outs, meta = numpy_candidate.compute(case)
        case.save(outs, metadata=meta)
    else:
        case.save(zeros(case), metadata={"kernel": "specialised for the published sizes"})


def replay_by(case, key, store, record):
    stored = os.path.join(store, hashlib.sha256(key.encode()).hexdigest() + ".safetensors")
    if record:
        outs, meta = numpy_candidate.compute(case)
        case.save(outs, metadata=meta)
        shutil.copyfile(os.path.join(case.out_dir, "outputs.safetensors"), stored)
    elif os.path.exists(stored):
        os.makedirs(case.out_dir, exist_ok=True)
        shutil.copyfile(stored, os.path.join(case.out_dir, "outputs.safetensors"))
    else:
        case.save(zeros(case), metadata={"kernel": "broken"})


def f16_gemm(case, accumulate):
    """A GEMM case's d from float16 operands, accumulated in `accumulate`."""
    x = case.inputs()
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.asarray(x["a"], np.float64).astype(np.float16).astype(accumulate)
        b = np.asarray(x["b"], np.float64).astype(np.float16).astype(accumulate)
        return {"d": (a @ b.T).astype(accumulate)}, {"kernel": "float16 " + accumulate.__name__}


def copy_outputs(src_dir, dst_dir):
    os.makedirs(dst_dir, exist_ok=True)
    for name in os.listdir(src_dir):
        shutil.copyfile(os.path.join(src_dir, name), os.path.join(dst_dir, name))


def find_base(case, by_key):
    """The out/ folder of the case this one is a variant of, or None."""
    group = case.spec.get("group")
    if group and case.spec.get("variant", "base") != "base":
        base = os.path.join(os.path.dirname(case.dir), group, "out")
        if os.path.isdir(base) and os.listdir(base):
            return base
    for other_dir in by_key.get(inputs_key(case), []):
        out = os.path.join(other_dir, "out")
        if other_dir != case.dir and os.path.isdir(out) and os.listdir(out):
            return out
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--cheat", required=True,
                    choices=["variant_copy_base", "memo_by_input_hash", "memo_on_disk",
                             "replay_cache", "tested_shapes_only", "listed_values_only",
                             "replay_by_shape", "replay_by_folder", "f16_compute",
                             "f16_operands"])
    ap.add_argument("--store", default=None)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    cases = list(iter_cases(args.cases))
    if args.cheat == "variant_copy_base":
        # Every case folder of the work folder, by the bytes of its inputs.
        by_key = {}
        root = os.path.dirname(cases[0].dir) if cases else ""
        for name in sorted(os.listdir(root)) if root else []:
            folder = os.path.join(root, name)
            try:
                with open(os.path.join(folder, "inputs.safetensors"), "rb") as f:
                    by_key.setdefault(hashlib.sha256(f.read()).hexdigest(), []).append(folder)
            except OSError:
                pass
        for case in cases:
            base = find_base(case, by_key)
            if base is not None:
                copy_outputs(base, case.out_dir)
                continue
            outs, meta = numpy_candidate.compute(case, "nondeterministic")
            case.save(outs, metadata=meta)
    elif args.cheat == "memo_by_input_hash":
        memo = {}
        for case in cases:
            key = inputs_key(case)
            if key not in memo:
                memo[key] = numpy_candidate.compute(case, "nondeterministic")
            case.save(*memo[key])
    elif args.cheat == "memo_on_disk":
        root = os.path.dirname(cases[0].dir) if cases else ""
        homes = [os.environ.get("TMPDIR", "/tmp"), os.getcwd(), os.path.expanduser("~")]
        def places():
            found = [os.path.join(h, ".av_memo") for h in homes]
            for name in sorted(os.listdir(root)) if root else []:
                found.append(os.path.join(root, name, "out", ".av_memo"))
            return found
        for case in cases:
            key = inputs_key(case)
            hit = next((p for p in places() if os.path.isdir(os.path.join(p, key))), None)
            if hit is not None:
                copy_outputs(os.path.join(hit, key), case.out_dir)
                continue
            outs, meta = numpy_candidate.compute(case, "nondeterministic")
            case.save(outs, metadata=meta)
            for memo in [os.path.join(h, ".av_memo") for h in homes] + [
                    os.path.join(c.out_dir, ".av_memo") for c in cases]:
                try:
                    os.makedirs(os.path.join(memo, key), exist_ok=True)
                    shutil.copyfile(os.path.join(case.out_dir, "outputs.safetensors"),
                                    os.path.join(memo, key, "outputs.safetensors"))
                except OSError:
                    pass
    elif args.cheat == "replay_cache":
        os.makedirs(args.store, exist_ok=True)
        for case in cases:
            replay_by(case, inputs_key(case), args.store, args.record)
    elif args.cheat in ("listed_values_only", "replay_by_shape", "replay_by_folder"):
        os.makedirs(args.store, exist_ok=True)
        for case in cases:
            if args.cheat == "listed_values_only":
                listed_values_only(case, args.store, args.record)
            elif args.cheat == "replay_by_shape":
                replay_by(case, shape_key(case), args.store, args.record)
            else:
                replay_by(case, os.path.basename(os.path.normpath(case.dir)), args.store,
                          args.record)
    elif args.cheat in ("f16_compute", "f16_operands"):
        for case in cases:
            if case.op == "gemm":
                outs, meta = f16_gemm(case, np.float16 if args.cheat == "f16_compute" else np.float32)
            else:
                outs, meta = numpy_candidate.compute(case)
            case.save(outs, metadata=meta)
    else:  # tested_shapes_only
        os.makedirs(args.store, exist_ok=True)
        seen_file = os.path.join(args.store, "seen.json")
        seen = json.load(open(seen_file)) if os.path.exists(seen_file) else []
        seen = set(seen)
        for case in cases:
            if args.record:
                seen.add(shape_key(case))
            if args.record or shape_key(case) in seen:
                outs, meta = numpy_candidate.compute(case)
                case.save(outs, metadata=meta)
            else:
                case.save(zeros(case), metadata={"kernel": "tuned to the published sweep"})
        if args.record:
            with open(seen_file, "w") as f:
                json.dump(sorted(seen), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
