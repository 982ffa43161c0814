//go:build !(((linux && amd64) || darwin) && !noxla)

package model

// xlaCompiled reports whether the XLA (PJRT) backend is linked in.
const xlaCompiled = false

func disableAutoInstall() {}
