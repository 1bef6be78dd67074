package main

import (
	"fmt"
	"io"

	"github.com/piopt/piopt/data"
	"github.com/urfave/cli/v2"
)

func cacheCommand() *cli.Command {
	return &cli.Command{
		Name:  "cache",
		Usage: "show or clear the binary cache of parsed LETOR files",
		Description: `Every command that reads a LETOR file keeps a parsed copy of it in the cache
folder, so that the next read is fast: --cache-dir DIR, else $PIOPT_CACHE,
else piopt in the user cache folder ($XDG_CACHE_HOME/piopt or ~/.cache/piopt
on Linux). An entry is checked against its source on every read and
rewritten when stale, but never evicted: it takes 4 bytes per document and
feature of its file.

cache dir prints the folder in use. cache clean removes the cache entries in
it (and the partial ones an interrupted run left behind), and prints what it
freed; it removes no other file, nor the folder itself.

   piopt cache dir
   piopt cache clean --cache-dir /tmp/piopt-cache`,
		Subcommands: []*cli.Command{
			{
				Name:   "dir",
				Usage:  "print the cache folder in use",
				Flags:  []cli.Flag{cacheDirFlag()},
				Action: func(c *cli.Context) error { return cacheDir(c) },
			},
			{
				Name:  "clean",
				Usage: "remove piopt's cache files and print what that freed",
				Flags: []cli.Flag{cacheDirFlag()},
				Action: func(c *cli.Context) error {
					dir, err := cacheFolder(c)
					if err != nil {
						return err
					}
					return cleanCache(c.App.Writer, dir)
				},
			},
		},
	}
}

// cacheDirFlag is dataFlags' --cache-dir, so that the folder is given as
// to any command that reads data (flag, then PIOPT_CACHE).
func cacheDirFlag() cli.Flag {
	for _, f := range dataFlags() {
		if f.Names()[0] == "cache-dir" {
			return f
		}
	}
	panic("dataFlags has no --cache-dir")
}

// cacheFolder resolves the cache folder as data loading does.
func cacheFolder(c *cli.Context) (string, error) {
	dir, err := data.CacheFolder(c.String("cache-dir"))
	if err != nil {
		return "", fmt.Errorf("cache folder: %w (give --cache-dir)", err)
	}
	return dir, nil
}

func cacheDir(c *cli.Context) error {
	dir, err := cacheFolder(c)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(c.App.Writer, dir)
	return err
}

// cleanCache removes piopt's cache files from dir (data.CleanCache) and
// says what that freed.
func cleanCache(w io.Writer, dir string) error {
	done, err := data.CleanCache(dir)
	if err != nil {
		return fmt.Errorf("cache clean: %w", err)
	}
	if done.Missing {
		_, err = fmt.Fprintf(w, "%s: no cache files (the folder does not exist)\n", dir)
		return err
	}
	if done.Files == 0 {
		fmt.Fprintf(w, "%s: no cache files", dir)
	} else {
		fmt.Fprintf(w, "%s: removed %d cache files, freed %s", dir, done.Files, byteSize(done.Bytes))
	}
	if done.Live > 0 {
		fmt.Fprintf(w, "; kept %d being written", done.Live)
	}
	_, err = fmt.Fprintln(w)
	return err
}

// byteSize formats n bytes with a decimal unit: 512 B, 3.4 kB, 1.2 GB.
func byteSize(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f, units := float64(n), []string{"kB", "MB", "GB", "TB"}
	for i := range units {
		f /= 1000
		if f < 999.95 || i == len(units)-1 {
			return fmt.Sprintf("%.1f %s", f, units[i])
		}
	}
	panic("unreachable")
}
