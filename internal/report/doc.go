// Package report renders piopt's results as self-contained HTML: pages with
// tables and inline SVG charts (a log-log line chart for RMSE against the
// number of logged samples, with an optional shaded band per series for the
// spread across runs; a grouped bar chart with error bars for experiment
// tables). Nothing refers to an external asset, so a report opens offline
// and can be mailed as one file; the same input gives the same bytes.
//
// Reports read at any window width: charts carry a viewBox and scale to the
// text column (never past their drawn size), tables scroll inside their own
// box when still too wide, and long cells, settings (KeyValues) and
// commands (Pre) wrap. Numbers have one notation: Number for axis ticks,
// counts and sample sizes (100, 1k, 17.78k, 1M; never 1e+05), and
// FixedColumn (or Decimals with Fixed) for the estimates of a table, all
// with the same decimals.
package report
