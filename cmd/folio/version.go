package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version is set at link time with -ldflags "-X main.version=…"; it wins
// over the module version the go command records.
var version = "dev"

// readBuildInfo is what the go command recorded in the binary; nil when
// it recorded nothing.
func readBuildInfo() *debug.BuildInfo {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi
	}
	return nil
}

// buildVersion is the version stamped at link time, else the main module's
// (a tag, or a pseudo-version that go build derives from the checkout),
// else "dev".
func buildVersion(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionText is what folio version prints: the version, then what the go
// command recorded of the checkout (absent with -buildvcs=false or outside
// one) and of the toolchain.
func versionText(stamped string, bi *debug.BuildInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "folio %s\n", buildVersion(stamped, bi))
	if bi == nil {
		return b.String()
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += "-dirty"
		}
		fmt.Fprintf(&b, "revision: %s\n", rev)
	}
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(&b, "commit time: %s\n", t)
	}
	if bi.GoVersion != "" {
		goVersion := bi.GoVersion
		if settings["GOOS"] != "" && settings["GOARCH"] != "" {
			goVersion += " " + settings["GOOS"] + "/" + settings["GOARCH"]
		}
		fmt.Fprintf(&b, "go: %s\n", goVersion)
	}
	return b.String()
}

// folioVersion is this binary's version, as folio version prints it first.
func folioVersion() string { return buildVersion(version, readBuildInfo()) }
