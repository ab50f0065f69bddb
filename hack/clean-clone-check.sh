#!/usr/bin/env bash
# clean-clone-check.sh checks that read-only go commands leave a fresh clone
# of the current commit as it was (hack/test.sh runs it). The workspace's
# go.work.sum is not tracked, because go writes it on such commands whenever
# the workspace's module graph needs a checksum no module's go.sum holds;
# each module's go.sum is tracked and must be complete, which this checks.
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse HEAD)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$PWD" "$tmp/clone"
cd "$tmp/clone"
git checkout -q --detach "$commit"

# As a user runs them: in the workspace (go.work), and in each module.
unset GOWORK
run() { echo "+ $*"; "$@" >/dev/null; }
run go doc ./ipam
run go list -m all
run go doc ./kube
(cd kube && run go list -m all)
(cd examples && run go list -m all)

dirty=$(git status --porcelain)
if [ -n "$dirty" ]; then
	echo "FAIL: read-only commands changed a fresh clone of $commit:"
	echo "$dirty"
	git diff --stat
	exit 1
fi
echo "a fresh clone of $commit is clean after them"
