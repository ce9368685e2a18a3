#!/usr/bin/env python3
"""Detection and hint precision of a sweep on planted kernel bugs.

Runs `attnverify numerics` with build/cpu_candidate and each of its `--bug` mutants (and
the correct candidate, for false alarms) over a shapes.json with every sweep's seeds set
to SEEDS, and reports per mutant: caught or not (any failing case), which sweeps caught
it, and whether the localisation hints of its failing cases were right, wrong or absent
against the MUTANTS table below (what a hint must say to be right). Builds nothing: run
scripts/build (or /work/devtools/build.sh) first. Figures go in the issue notes, never
into tests (python3 standard library only).

  bench/detection.py [--av BIN] [--candidate BIN] [--shapes JSON] [--seeds 0,1,2,3,4]
                     [--jobs 2] [--reference oracle] [--bugs a,b] [--json OUT]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# bug -> (what it breaks, what a right hint says, whether the bug is global). A hint holding
# one of the phrases is right; "range:AXIS" stands for a range fitted along that axis ("in
# heads >= 64 only"), right where the bug's footprint is such a range. "errors everywhere"
# is right for a global bug (it hits every element of a case it fails) and neutral for the
# others: true by construction (90% of the units hold errors), it names no mechanism. Any
# other hint of a failing case is wrong.
MUTANTS = {
    "causal_top_left": ("top-left causal mask (and window)",
                        ["causal mask is misaligned", "no visible key", "left window edge",
                         "window is clipped", "right window edge", "range:query rows i"], False),
    "window_off_by_one": ("left window edge one key short",
                          ["left window edge", "window is clipped", "range:query rows i"], False),
    "gqa_head_mapping": ("query head h reads kv head h % h_kv", ["GQA mapping"], False),
    "read_past_length": ("MLA decode reads the last page past cache_seqlens",
                         ["key length is not a multiple of", "NaN where the reference is finite"],
                         False),
    "combine_no_max": ("split-k combine without the max", ["NaN where the reference is finite"],
                       True),
    "lse_log2": ("lse in log2", ["1 / ln 2"], True),
    "splits_bf16": ("split-k partials rounded to bf16", [], False),
    "gemm_no_tail_n": ("fp8 GEMM drops the partial n tile",
                       ["the tail tile is missing or wrong", "exactly 0 where",
                        "range:columns n"], False),
    "scales_per_128_rows": ("fp8 GEMM scale of row 128*(m/128)", ["per 128 rows"], False),
    "heads_over_64": ("heads >= 64 read q of head h - 64", ["heads >= 64 only"], False),
    "softmax_scale_dv": ("softmax scale 1/sqrt(dv)", ["a scale factor is wrong"], True),
    "v_wrong_channels": ("V from the last 512 channels", [], True),
    "page_size_64": ("block table walked with 64-key pages",
                     ["NaN where the reference is finite"], True),
    "softmax_no_max": ("unmasked attention without max subtraction",
                       ["NaN where the reference is finite"], True),
    "alibi_slopes": ("ALiBi slopes added", [], True),
    "causal_s_q": ("causal mask written for s_q = 1",
                   ["causal mask is misaligned", "range:query rows i"], False),
    "empty_lse_zero": ("lse 0 for rows with no key", ["empty sequences", "no visible key"], False),
    "partial_block_skipped": ("keys past the last whole 64-key block skipped",
                              ["key length is not a multiple of", "partial 64-key tile",
                               "exactly 0 where"], False),
    "window_right_off_by_one": ("right window edge one key short",
                                ["right window edge", "range:query rows i"], False),
    "varlen_k_offset": ("varlen keys start at cu_seqlens_q", ["range:sequences"], False),
    "gemm_no_tail_k": ("fp8 GEMM drops the partial k block", [], True),
    "scale_k_block_off": ("fp8 GEMM a-scale of the next k block", [], True),
    "sparse_index_clamp": ("sparse indices >= s_kv clamped", [], False),
}


def classify(hint, phrases, global_bug):
    """"right", "wrong" or "neutral" (errors everywhere on a bug that is not global)."""
    if "errors everywhere" in hint:
        return "right" if global_bug else "neutral"
    for p in phrases:
        if p.startswith("range:"):
            if (" in " + p[6:] + " ") in hint and hint.endswith(" only"):
                return "right"
        elif p in hint:
            return "right"
    return "wrong"


def write_package(folder, args, bug):
    with open(args.shapes) as f:
        shapes = json.load(f)
    for sweep in shapes["sweeps"]:
        sweep["seeds"] = args.seeds
    with open(os.path.join(folder, "shapes.json"), "w") as f:
        json.dump(shapes, f, indent=1)
    command = [args.candidate, "{cases}"] + (["--bug", bug] if bug else [])
    with open(os.path.join(folder, "attnverify.toml"), "w") as f:
        f.write('[numerics]\nshapes = "shapes.json"\ntolerances = "%s"\nreference = "%s"\n'
                "jobs = %d\n[candidate]\ncommand = %s\ntimeout_s = 3600\n"
                % (args.tolerances, args.reference, args.jobs, json.dumps(command)))
    return os.path.join(folder, "attnverify.toml")


def run(args, bug):
    with tempfile.TemporaryDirectory(prefix="av-detect-") as folder:
        toml = write_package(folder, args, bug)
        t0 = time.time()
        p = subprocess.run([args.av, "numerics", "--config", toml], capture_output=True, text=True)
        wall = time.time() - t0
        path = os.path.join(folder, "evidence", "numerics.json")
        if not os.path.exists(path):
            sys.exit("no numerics.json for bug %r (exit %d):\n%s" % (bug, p.returncode, p.stderr))
        with open(path) as f:
            return json.load(f), p.returncode, wall


def failing_cases(evidence):
    """id, sweep and hints of every failing case: all that judging needs (kept in --json)."""
    return [{"id": c["id"], "sweep": c["sweep"], "reason": c["reason"],
             "hints": c.get("localisation", {}).get("hints", [])}
            for c in evidence["cases"] if c["verdict"] != "pass"]


def judge(bug, failing, total):
    _, phrases, global_bug = MUTANTS.get(bug, ("", [], False))
    sweeps = sorted({c["sweep"] for c in failing})
    right = wrong = neutral = hinted_cases = 0
    wrong_examples = []
    for c in failing:
        hints = c["hints"]
        hinted_cases += bool(hints)
        for h in hints:
            kind = classify(h, phrases, global_bug)
            right += kind == "right"
            neutral += kind == "neutral"
            if kind == "wrong":
                wrong += 1
                if len(wrong_examples) < 3:
                    wrong_examples.append(c["id"] + ": " + h[:160])
    if not failing:
        verdict = "-"
    elif right + wrong == 0:
        verdict = "neutral only" if neutral else "absent"
    elif wrong == 0:
        verdict = "right"
    elif right == 0:
        verdict = "wrong"
    else:
        verdict = "mixed"
    return {"bug": bug, "failed": len(failing), "cases": total,
            "sweeps": sweeps, "hinted_cases": hinted_cases, "right_hints": right,
            "wrong_hints": wrong, "neutral_hints": neutral, "hints": verdict, "wrong_examples": wrong_examples}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--av", default=os.path.join(root, "build", "attnverify"))
    ap.add_argument("--candidate", default=os.path.join(root, "build", "cpu_candidate"))
    ap.add_argument("--shapes", default=os.path.join(root, "config", "shapes.json"))
    ap.add_argument("--tolerances", default=os.path.join(root, "config", "tolerances.json"))
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reference", default="oracle")
    ap.add_argument("--bugs", default="", help="comma-separated (default: all, and none)")
    ap.add_argument("--json", default="", help="write the rows (and every failing case) here")
    ap.add_argument("--rejudge", default="", help="judge the failing cases of an earlier --json "
                    "against the MUTANTS table instead of running anything")
    args = ap.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    for a in ("av", "candidate", "shapes", "tolerances"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    bugs = args.bugs.split(",") if args.bugs else [""] + list(MUTANTS)
    earlier = {}
    if args.rejudge:
        with open(args.rejudge) as f:
            earlier = {r["bug"]: r for r in json.load(f)}
        bugs = [b for b in bugs if b in earlier]
    rows = []
    print("| bug | caught | failing cases | sweeps | hints | right / wrong / neutral hints | wall s |")
    print("|---|---|---|---|---|---|---|")
    for bug in bugs:
        if args.rejudge:
            e = earlier[bug]
            failing, total, rc, wall = e["failing"], e["cases"], e["exit"], e["wall_s"]
        else:
            evidence, rc, wall = run(args, bug)
            failing, total = failing_cases(evidence), len(evidence["cases"])
        row = judge(bug, failing, total)
        row["exit"] = rc
        row["wall_s"] = round(wall, 1)
        row["failing"] = failing
        rows.append(row)
        caught = "false alarm" if not bug and row["failed"] else ("yes" if row["failed"] else "no")
        print("| %s | %s | %d of %d | %s | %s | %d / %d / %d | %.1f |" % (
            bug or "(none)", caught, row["failed"], row["cases"], " ".join(row["sweeps"]),
            row["hints"], row["right_hints"], row["wrong_hints"], row["neutral_hints"], wall),
            flush=True)
    mutants = [r for r in rows if r["bug"]]
    caught = [r for r in mutants if r["failed"]]
    verdicts = {v: sum(r["hints"] == v for r in caught)
                for v in ("right", "mixed", "wrong", "neutral only", "absent")}
    right = sum(r["right_hints"] for r in caught)
    wrong = sum(r["wrong_hints"] for r in caught)
    print("\ncaught %d of %d mutants; hints per caught mutant: %s; hint precision %d / %d" % (
        len(caught), len(mutants), verdicts, right, right + wrong))
    for r in caught:
        for e in r["wrong_examples"]:
            print("  wrong (%s): %s" % (r["bug"], e))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
