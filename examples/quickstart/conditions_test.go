package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestConditionsSection(t *testing.T) {
	var a, b bytes.Buffer
	if err := conditionsSection(&a); err != nil {
		t.Fatal(err)
	}
	if err := conditionsSection(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two runs differ:\n%s\n---\n%s", a.String(), b.String())
	}
	out := a.String()
	for _, want := range []string{
		"reader in epoch epoch-b2: IsReady = false (OwnerRestarted)",
		"CacheReady history: False (NotInitialized) [epoch-a1] -> True [epoch-a1] -> False (OwnerRestarted) [epoch-b2] -> True [epoch-b2]",
		`"lastTransitionTime":"2026-12-02T10:00:08Z"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
