package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// The provider as clusterctl names it: type IPAMProvider, name vmnetkit,
// so `clusterctl init --ipam vmnetkit`; its label is the type's prefix and
// the name.
const (
	ProviderName  = "vmnetkit"
	ProviderLabel = "ipam-" + ProviderName

	// ProviderLabelKey is the label every object of a provider's
	// components carries (Cluster API's clusterv1.ProviderNameLabel).
	ProviderLabelKey = "cluster.x-k8s.io/provider"

	// ComponentsFile and MetadataFile are the release assets' names:
	// clusterctl reads ipam-components.yaml for an IPAMProvider, and
	// metadata.yaml beside it.
	ComponentsFile = "ipam-components.yaml"
	MetadataFile   = "metadata.yaml"
)

// componentFolders are the folders of config/ that make the components, in
// the order kubectl applies them; samples/ is a user's, not the provider's.
var componentFolders = []string{"crd", "rbac", "manager"}

// header heads the generated components.
const header = `# ipam-components.yaml: the components of vmnetkit's Cluster API IPAM
# provider (ipam-vmnetkit) that clusterctl init installs, generated from
# config/crd, config/rbac and config/manager by make capiipam-components
# (go run ./capiipam/release). Do not edit: change config/ and regenerate.
`

// Components returns the components YAML built from the folders of the
// config folder: every document of their *.yaml files (files by name,
// documents in file order) with the label cluster.x-k8s.io/provider:
// ipam-vmnetkit added, one document each. It fails on a document that is
// not an object, on more than one Namespace (clusterctl installs a
// provider's namespaced objects in one), and on "${" anywhere (clusterctl
// would read it as a variable to substitute).
func Components(config string) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString(header)
	namespaces := 0
	for _, folder := range componentFolders {
		files, err := filepath.Glob(filepath.Join(config, folder, "*.yaml"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no manifests in %s", filepath.Join(config, folder))
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			if bytes.Contains(data, []byte("${")) {
				return nil, fmt.Errorf("%s: holds %q, which clusterctl reads as a variable", file, "${")
			}
			for _, doc := range bytes.Split(data, []byte("\n---")) {
				obj := map[string]any{}
				if err := yaml.Unmarshal(doc, &obj); err != nil {
					return nil, fmt.Errorf("%s: %w", file, err)
				}
				if len(obj) == 0 { // comments only
					continue
				}
				if obj["kind"] == "Namespace" {
					namespaces++
				}
				if err := addLabel(obj, ProviderLabelKey, ProviderLabel); err != nil {
					return nil, fmt.Errorf("%s: %w", file, err)
				}
				y, err := yaml.Marshal(obj)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", file, err)
				}
				out.WriteString("---\n")
				out.Write(y)
			}
		}
	}
	if namespaces != 1 {
		return nil, fmt.Errorf("%d Namespaces in %s, want 1: clusterctl installs a provider in one", namespaces, config)
	}
	return out.Bytes(), nil
}

// addLabel sets the label key=value in obj's metadata.
func addLabel(obj map[string]any, key, value string) error {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok || obj["kind"] == nil {
		return fmt.Errorf("a document without kind or metadata: %.60q", strings.TrimSpace(fmt.Sprint(obj)))
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
	}
	labels[key] = value
	meta["labels"] = labels
	return nil
}
