// Package ui embeds the built admin UI.
package ui

import "embed"

//go:embed all:dist
var dist embed.FS
