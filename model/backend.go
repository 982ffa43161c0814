package model

import (
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // the pure-Go backend
)

// DefaultBackend is the backend spec used when none is given: the pure-Go
// CPU backend with sequential ops (parallel ops can deadlock on 2 cores).
const DefaultBackend = "go"

// SetEnvDefaults sets GOMLX_NO_AUTO_INSTALL=1 (never download PJRT plugins)
// and GOPJRT_CUDA_CHECKS=0 unless they are already set.
func SetEnvDefaults() {
	for k, v := range map[string]string{"GOMLX_NO_AUTO_INSTALL": "1", "GOPJRT_CUDA_CHECKS": "0"} {
		if _, ok := os.LookupEnv(k); !ok {
			_ = os.Setenv(k, v)
		}
	}
	disableAutoInstall()
}

// BackendConfig turns a user spec into a GoMLX backend configuration:
//
//	"" or "go"        → "go:ops_sequential"
//	"go:<options>"    → unchanged
//	"xla:cuda"        → the CUDA PJRT plugin found on the plugin path
//	"xla:cpu"         → the CPU PJRT plugin
//	"xla:/path/x.so"  → that PJRT plugin file
func BackendConfig(spec string) (string, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "go":
		return "go:ops_sequential", nil
	case strings.HasPrefix(spec, "go:"):
		return spec, nil
	case spec == "xla":
		return "", fmt.Errorf("backend %q: name the plugin, e.g. xla:cuda or xla:/path/to/pjrt_plugin.so", spec)
	case strings.HasPrefix(spec, "xla:"):
		if !xlaCompiled {
			return "", fmt.Errorf("backend %q: this binary was built with -tags noxla", spec)
		}
		plugin := strings.TrimPrefix(spec, "xla:")
		if strings.Contains(plugin, "/") {
			if _, err := os.Stat(plugin); err != nil {
				return "", fmt.Errorf("backend %q: plugin: %w", spec, err)
			}
		}
		return spec, nil
	}
	return "", fmt.Errorf("backend %q: want go, go:<options>, xla:cuda, xla:cpu or xla:/path/to/pjrt_plugin.so", spec)
}

// NewBackend creates the backend named by spec (see BackendConfig), after
// SetEnvDefaults.
func NewBackend(spec string) (backends.Backend, error) {
	SetEnvDefaults()
	cfg, err := BackendConfig(spec)
	if err != nil {
		return nil, err
	}
	b, err := backends.NewWithConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("backend %q: %w", spec, err)
	}
	return b, nil
}
