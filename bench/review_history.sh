#!/bin/bash
# Runs attnverify's built-in review over real commits the way a user runs it (slice, then
# review, so the rules read the whole base and head files), for judging findings by hand
# (doc/review.md, "Measured on real history").
#
# usage: bench/review_history.sh LIST OUTDIR [ATTNVERIFY]
#   LIST    lines "ID GIT_DIR SHA" (a clone's .git folder or a bare repository); '#' comments
#   OUTDIR  gets OUTDIR/ID.txt (one line per finding: id severity rule file:line-end :: text)
#           and OUTDIR/ID/ (the throw-away repository and its review.json)
# For each commit: a new repository holding only the files the commit touches, at its parent
# (first commit) and at the commit (second), reviewed with component "code" = everything.
set -u
[ $# -ge 2 ] || { echo "usage: $0 LIST OUTDIR [ATTNVERIFY]" >&2; exit 2; }
LIST=$1; OUT=$2; AV=${3:-$(dirname "$0")/../build/attnverify}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); AV=$(readlink -f "$AV")
while read -r id gitdir sha; do
  case "$id" in ''|\#*) continue;; esac
  w=$OUT/$id; rm -rf "$w"; mkdir -p "$w/repo"
  git -C "$w/repo" init -q
  git -C "$w/repo" config user.email review@example.invalid
  git -C "$w/repo" config user.name review
  git --git-dir="$gitdir" diff-tree -r --no-commit-id --name-status -M "$sha~1" "$sha" > "$w/files.txt"
  while IFS=$'\t' read -r st a b; do
    [ "$st" = A ] && continue
    mkdir -p "$w/repo/$(dirname "$a")"
    git --git-dir="$gitdir" show "$sha~1:$a" > "$w/repo/$a"
  done < "$w/files.txt"
  git -C "$w/repo" add -A && git -C "$w/repo" commit -q --allow-empty -m base
  while IFS=$'\t' read -r st a b; do
    case $st in
      D) rm -f "$w/repo/$a" ;;
      R*) rm -f "$w/repo/$a"; mkdir -p "$w/repo/$(dirname "$b")"
          git --git-dir="$gitdir" show "$sha:$b" > "$w/repo/$b" ;;
      *) mkdir -p "$w/repo/$(dirname "$a")"; git --git-dir="$gitdir" show "$sha:$a" > "$w/repo/$a" ;;
    esac
  done < "$w/files.txt"
  git -C "$w/repo" add -A && git -C "$w/repo" commit -q -m head
  mkdir -p "$w/repo/attention-verify"
  printf '[slice]\nrepo = ".."\nbase = "HEAD~1"\n\n[components]\ncode = ["**"]\n' \
    > "$w/repo/attention-verify/attnverify.toml"
  if (cd "$w/repo" && "$AV" slice --config attention-verify/attnverify.toml >/dev/null &&
      "$AV" review --config attention-verify/attnverify.toml >/dev/null) 2>"$w/errors.txt"; then
    cp "$w/repo/attention-verify/evidence/review.json" "$w/review.json"
    python3 - "$w/review.json" > "$OUT/$id.txt" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1])).get("findings", []):
    print(f'{f["id"]} {f["severity"]} {f["rule"]} {f["file"]}:{f["line"]}-{f.get("end_line", f["line"])} '
          f':: {f["title"]}: {f["message"]}')
PY
  else
    echo "$id: attnverify failed (see $w/errors.txt)" | tee "$OUT/$id.txt"
  fi
done < "$LIST"
