package buildinfo

import "runtime/debug"

// Version is set at link time with -ldflags "-X example.com/kv/internal/buildinfo.Version=v1.2.3".
var Version = "dev"

// Commit returns the VCS revision the binary was built from, or "unknown".
func Commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return "unknown"
}