// Package assets holds the kiosk's stylesheet and script, embedded in the
// binary so the kiosk needs no network and no CDN.
package assets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
)

//go:embed kiosk.css kiosk.js favicon.svg
var files embed.FS

// FS returns the embedded assets.
func FS() fs.FS { return files }

// Versions returns, for each asset, a short hash of its content, to append
// to its URL so a browser never keeps a stale copy after an upgrade.
func Versions() (map[string]string, error) {
	v := make(map[string]string)
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read asset %s: %w", path, err)
		}
		sum := sha256.Sum256(b)
		v[path] = hex.EncodeToString(sum[:6])
		return nil
	})
	return v, err
}
