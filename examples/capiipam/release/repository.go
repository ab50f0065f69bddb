package main

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
)

// NewestVersion returns the version of the newest release series of the
// clusterctl metadata, patch 0: "v0.1.0" for a series 0.1.
func NewestVersion(metadata []byte) (string, error) {
	var m clusterctlv1.Metadata
	if err := yaml.UnmarshalStrict(metadata, &m); err != nil {
		return "", fmt.Errorf("%s: %w", MetadataFile, err)
	}
	if len(m.ReleaseSeries) == 0 {
		return "", fmt.Errorf("%s: no release series", MetadataFile)
	}
	newest := m.ReleaseSeries[0]
	for _, s := range m.ReleaseSeries[1:] {
		if s.Major > newest.Major || s.Major == newest.Major && s.Minor > newest.Minor {
			newest = s
		}
	}
	return fmt.Sprintf("v%d.%d.0", newest.Major, newest.Minor), nil
}

// WriteRepository lays out the release version of the provider in repo as
// clusterctl's file repository wants it, {repo}/{provider label}/{version}/
// with the components and metadata files, and returns the components'
// path: the URL clusterctl's config names (as file://path).
func WriteRepository(repo, version string, components, metadata []byte) (string, error) {
	dir := filepath.Join(repo, ProviderLabel, version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, MetadataFile), metadata, 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, ComponentsFile)
	return path, os.WriteFile(path, components, 0o644)
}
