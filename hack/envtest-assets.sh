#!/usr/bin/env bash
# envtest-assets.sh builds kube-apiserver and etcd from the Go module proxy
# (no download site is needed), caches them by version, and prints the folder
# that holds them: point KUBEBUILDER_ASSETS at it. Progress goes to stderr.
#
# First run on a fresh 2-core machine: about 10 minutes (an estimate from its
# 18.5 CPU-minutes, see docs/performance.md); then instant.
set -euo pipefail

k8s_version=1.34.4          # k8s.io/kubernetes v1.34.x goes with the v0.34.x client libraries
staging_version=v0.34.4
etcd_version=v3.6.16

cache=${VMNETKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmnetkit}
assets=$cache/envtest/k8s-v$k8s_version-etcd-$etcd_version
log() { printf 'envtest-assets: %s\n' "$*" >&2; }

if [ -x "$assets/kube-apiserver" ] && [ -x "$assets/etcd" ]; then
	echo "$assets"
	exit 0
fi

mkdir -p "$cache/envtest"
exec 9>"$cache/envtest/.lock"
flock 9 # another run may be building the same assets
if [ -x "$assets/kube-apiserver" ] && [ -x "$assets/etcd" ]; then
	echo "$assets"
	exit 0
fi

work=$(mktemp -d "$cache/envtest/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out"
export GOWORK=off GOFLAGS=-mod=mod

staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller"

log "building kube-apiserver v$k8s_version from the Go module proxy (a few minutes, once)"
mkdir -p "$work/apiserver"
{
	echo "module apiserverbuild"
	echo
	echo "go 1.26"
	echo
	echo "require k8s.io/kubernetes v$k8s_version"
	echo
	for m in $staging; do echo "replace k8s.io/$m => k8s.io/$m $staging_version"; done
} >"$work/apiserver/go.mod"
cat >"$work/apiserver/deps.go" <<'GO'
package apiserverbuild

import _ "k8s.io/kubernetes/cmd/kube-apiserver/app"
GO
(cd "$work/apiserver" && go mod tidy >&2 && go build -o "$work/out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2)

log "building etcd $etcd_version from the Go module proxy"
mkdir -p "$work/etcd"
cat >"$work/etcd/go.mod" <<GOMOD
module etcdbuild

go 1.26

require go.etcd.io/etcd/server/v3 $etcd_version
GOMOD
cat >"$work/etcd/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
(cd "$work/etcd" && go mod tidy >&2 && go build -o "$work/out/etcd" . >&2)

rm -rf "$assets"
mv "$work/out" "$assets"
log "built into $assets"
echo "$assets"
