// Package report renders piopt's results as self-contained HTML: pages with
// tables and inline SVG charts (a log-log line chart for RMSE against the
// number of logged samples, a grouped bar chart with error bars for
// experiment tables). Nothing refers to an external asset, so a report opens
// offline and can be mailed as one file; the same input gives the same bytes.
package report
