package blog

import "testing"

func TestNodeInfoVersionIsAlwaysASemanticVersion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1.4.0", "1.4.0"},
		{"v1.4.0", "1.4.0"},
		{"v0.0.0-20261127174200-926504b1c0de", "0.0.0-20261127174200-926504b1c0de"},
		{"1.4.0-rc.1+build.5", "1.4.0-rc.1+build.5"},
		{"dev", "0.0.0-dev"},
		{"(devel)", "0.0.0-devel"},
		{"", "0.0.0-unknown"},
		{"1.4", "0.0.0-1.4"},
		{"a..b", "0.0.0-unknown"},
		{"été", "0.0.0-t"},
	}
	for _, tt := range tests {
		if got := nodeInfoVersion(tt.in); got != tt.want {
			t.Errorf("nodeInfoVersion(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
