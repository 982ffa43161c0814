//go:build ((linux && amd64) || darwin) && !noxla

package model

import "github.com/gomlx/gomlx/backends/xla"

// xlaCompiled reports whether the XLA (PJRT) backend is linked in.
const xlaCompiled = true

func disableAutoInstall() { xla.EnableAutoInstall(false) }
