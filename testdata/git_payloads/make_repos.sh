#!/bin/sh
# Builds the hostile repositories of the git marker test (src/compile/git_payloads_test.cc):
# W/repo holds every payload class of doc/formats/attnverify-toml-build.md ("What git may
# run") in its .git/config, hooks, .gitattributes and a submodule, each a script that
# touches W/markers/<class> when git runs it; W/partial is a partial clone whose
# remote.origin.uploadpack is one. Each repository also holds an attnverify package
# (attention-verify/) with a fake nvcc, so build --base and run exercise git fully.
# Usage: make_repos.sh W (an empty folder). Needs git; prints nothing on success.
set -eu
W=$1
M=$W/markers P=$W/payload
mkdir -p "$M" "$P" "$W/hooks"
# Setup runs with every program off; the payloads are installed after.
G() {
  git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false \
    -c core.hooksPath=/dev/null -c protocol.file.allow=always -c init.defaultBranch=main "$@"
}
payload() {  # payload NAME [BODY]: a script that leaves the marker NAME, then runs BODY
  printf '#!/bin/sh\ntouch "%s/%s"\n%s\n' "$M" "$1" "${2:-}" > "$P/$1"
  chmod +x "$P/$1"
}
package() {  # package DIR: an attnverify package in DIR/attention-verify
  mkdir -p "$1/attention-verify"
  cat > "$1/attention-verify/attnverify.toml" <<'TOML'
[build]
root = ".."
sources = ["k.cu"]
archs = ["sm_90a"]
nvcc = "/bin/true"
block_size = 128

[slice]
repo = ".."
base = "HEAD~1"

[components]
kernels = ["*.cu", "*.txt", "*.h"]
package = ["attention-verify/**"]

[review]
reviewer = "builtin"
TOML
}

# The submodule's own repository.
mkdir "$W/subsrc"
(cd "$W/subsrc" && G init -q && echo one > f.txt && G add -A && G commit -qm one)

mkdir "$W/repo"
cd "$W/repo"
G init -q
package .
printf '__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n' > k.cu
for f in smudge clean proc dcmd dtext inc wt; do echo "$f v1" > "$f.txt"; done
cat > .gitattributes <<'ATTR'
smudge.txt filter=fsmudge
clean.txt filter=fclean
proc.txt filter=fproc
dcmd.txt diff=dcmd
dtext.txt diff=dtext
inc.txt filter=finc
wt.txt filter=fwt
ATTR
G submodule add -q ../subsrc sub
G add -A && G commit -qm base
(cd "$W/subsrc" && echo two >> f.txt && G commit -qam two)
(cd sub && G pull -q 2>/dev/null)
printf '__global__ void k(float* x) { x[threadIdx.x] = 2.0f; }\n' > k.cu
for f in smudge clean proc dcmd dtext inc wt; do echo "$f v2" > "$f.txt"; done
G add -A && G commit -qm head
# HEAD, signed (a made-up signature: verifying it runs gpg.program).
git cat-file commit HEAD | awk '/^committer /{print; print "gpgsig -----BEGIN PGP SIGNATURE-----"; print " "; print " iQEzBAABCAAdFiEE"; print " -----END PGP SIGNATURE-----"; next} {print}' > "$W/signed"
G update-ref refs/heads/main "$(git hash-object -t commit -w "$W/signed")"
# Staged and unstaged changes, for slice --staged and --worktree.
printf '__global__ void k(float* x) { x[threadIdx.x] = 3.0f; }\n' > k.cu
G add k.cu
for f in smudge clean proc dcmd dtext inc wt; do echo "$f v3" > "$f.txt"; done

# The payloads.
for p in fsmonitor hook hookspath diffext dcmd alias pager pagerdiff ssh editor askpass \
         credential gpg submodule fsmonitor_wt; do
  payload "$p"
done
payload fsmonitor 'exit 1'
payload dtext 'cat "$1"'
for p in fsmudge fclean finc fwt submodule; do payload "$p" cat; done
payload fproc 'exit 1'
payload askpass 'echo x'
for h in post-checkout post-index-change reference-transaction pre-auto-gc post-rewrite; do
  cp "$P/hook" ".git/hooks/$h"
  cp "$P/hookspath" "$W/hooks/$h"
done
git config core.fsmonitor "$P/fsmonitor"
git config core.hooksPath "$W/hooks"
git config diff.external "$P/diffext"
git config diff.dcmd.command "$P/dcmd"
git config diff.dtext.textconv "$P/dtext"
for f in fsmudge fclean; do
  git config "filter.$f.smudge" "$P/$f"; git config "filter.$f.clean" "$P/$f"
  git config "filter.$f.required" true
done
git config filter.fproc.process "$P/fproc"
git config filter.fproc.required true
for a in avpayload diff show cat-file ls-tree rev-parse worktree config log status; do
  git config "alias.$a" "!$P/alias"
done
git config core.pager "$P/pager"
git config pager.diff "$P/pagerdiff"
git config core.sshCommand "$P/ssh"
git config core.editor "$P/editor"
git config core.askPass "$P/askpass"
git config credential.helper "$P/credential"
git config gpg.program "$P/gpg"
git config log.showSignature true
git config submodule.recurse true
printf '[filter "finc"]\n\tsmudge = %s\n\tclean = %s\n\trequired = true\n' "$P/finc" "$P/finc" > .git/included.cfg
git config include.path included.cfg
printf '[filter "fwt"]\n\tsmudge = %s\n\tclean = %s\n[core]\n\tfsmonitor = %s\n' \
  "$P/fwt" "$P/fwt" "$P/fsmonitor_wt" > .git/worktrees.cfg
printf '[includeIf "gitdir:**/worktrees/**"]\n\tpath = worktrees.cfg\n' >> .git/config
# The submodule's own config: a smudge filter on every file.
git -C sub config filter.subf.smudge "$P/submodule"
mkdir -p .git/modules/sub/info
echo '* filter=subf' > .git/modules/sub/info/attributes

# A partial clone (blobs fetched on demand) whose upload-pack is a payload.
mkdir "$W/partsrc"
cd "$W/partsrc"
G init -q
package .
printf '__global__ void k(float* x) { x[0] = 1.0f; }\n' > k.cu
G add -A && G commit -qm base
printf '__global__ void k(float* x) { x[0] = 2.0f; }\n' > k.cu
G commit -qam head
git config uploadpack.allowFilter true
git config uploadpack.allowAnySHA1InWant true
cd "$W"
G clone -q --filter=blob:none --no-local "file://$W/partsrc" partial
payload uploadpack 'exec git-upload-pack "$@"'
git -C partial config remote.origin.uploadpack "$P/uploadpack"
rm -f "$M"/*
