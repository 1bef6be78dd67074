// Package datatest holds test support shared by the tests of several
// packages of the module, as net/http/httptest does for net/http: it
// locates the real LETOR files in ../shared/data beside the repository and
// skips a test cleanly where they are absent. It sits on floor 0 with data
// so that every package's tests may import it; it imports nothing of piopt.
package datatest
