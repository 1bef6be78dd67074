package data

import (
	"errors"
	"strings"
	"testing"
)

// errCase is one malformed input of a reader's table test: the log and
// targets readers report errors the same way (a sentinel kind wrapped in a
// *ParseError), so their tables share this type and checkErrCases.
type errCase struct {
	name, text string
	kind       error
	want       string // a substring of the message
}

// checkErrCases runs read on each case's text in a subtest and checks that
// the error is of the case's kind and contains its text; when file is not
// "", the error must also be a *ParseError naming file.
func checkErrCases(t *testing.T, file string, cases []errCase, read func(t *testing.T, text string) error) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := read(t, tc.text)
			if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (kind %v), want %v containing %q", err, errors.Unwrap(err), tc.kind, tc.want)
			}
			var pe *ParseError
			if file != "" && (!errors.As(err, &pe) || pe.File != file) {
				t.Fatalf("not a *ParseError naming %s: %#v", file, err)
			}
		})
	}
}
