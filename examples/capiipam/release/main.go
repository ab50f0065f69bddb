// Command release builds the clusterctl release assets of capiipam, the
// IPAM provider ipam-vmnetkit: ipam-components.yaml, built from config/,
// beside the hand-written metadata.yaml. From the examples module:
//
//	go run ./capiipam/release              rewrite capiipam/ipam-components.yaml (make capiipam-components)
//	go run ./capiipam/release -repo DIR    lay out DIR as a clusterctl repository (make capiipam-repo)
//
// A repository is what clusterctl reads a provider from when its config's
// providers list names a file URL: DIR/ipam-vmnetkit/VERSION/ holds
// ipam-components.yaml and metadata.yaml, VERSION being -version or, by
// default, the newest release series of metadata.yaml (v0.1.0 for 0.1).
// capiipam's README shows the config and the clusterctl init that use it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	dir := fs.String("dir", "capiipam", "capiipam's folder: config/ is read, ipam-components.yaml written, metadata.yaml read there")
	repo := fs.String("repo", "", "lay out a clusterctl repository in this folder instead of rewriting ipam-components.yaml")
	version := fs.String("version", "", "the release's version in -repo (default: the newest release series of metadata.yaml, patch 0)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	components, err := Components(filepath.Join(*dir, "config"))
	if err != nil {
		return err
	}
	if *repo == "" {
		return os.WriteFile(filepath.Join(*dir, ComponentsFile), components, 0o644)
	}
	metadata, err := os.ReadFile(filepath.Join(*dir, MetadataFile))
	if err != nil {
		return err
	}
	if *version == "" {
		if *version, err = NewestVersion(metadata); err != nil {
			return err
		}
	}
	path, err := WriteRepository(*repo, *version, components, metadata)
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}
