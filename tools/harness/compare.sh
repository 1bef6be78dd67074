#!/usr/bin/env bash
# compare.sh A B — compare two OUTDIRs of run.sh file by file, recursively.
#
# Prints every file that differs (with the first lines of a unified diff of the
# normalised contents) or exists on one side only, then
#   "N files compared, K differ".
# Exit status 0 when K = 0, 1 otherwise, 2 on usage errors.
#
# ============================ NORMALISATION ===============================
# Only fields that legitimately vary from run to run are rewritten, by sed,
# in text files; binary files (XGBoost models, which hold the targets
# header, e.g. data=train-assembled-KEY.txt) get F1 and F2 only:
#
#  F1 OUTDIR   (every text file) the side's own absolute OUTDIR path
#              (realpath, the spelling given on the command line, and the
#              path run.sh recorded in OUTDIR/outdir.txt)
#              -> <OUTDIR>                                  [sed_outdir]
#  F2 KEY      (every text file and every file NAME) experiment's stage-cache
#              keys, 16 hex digits after a dash (train-assembled-KEY.txt,
#              sha256-KEY.txt, pi-opt-ndcg-KEY.model, ...): they hash the
#              inputs' absolute paths and mtimes
#              s/-[0-9a-f]{16}\b/-<KEY>/g                   [F_KEY]
#              Files whose names become equal under F2 (e.g. six sha256-KEY.txt
#              in one folder) are compared as a group: the sorted multiset of
#              their normalised contents.
#  F3 VERSION  piopt's version/commit string (not XGBoost's):
#              - JSON:  "piopt_version": "..."   -> "piopt_version": "<VERSION>"
#              - HTML:  <p>piopt ..., XGBoost    -> <p>piopt <VERSION>, XGBoost
#              - root help: the line after "VERSION:" -> "   <VERSION>"
#              - NNN-version*.out: lines "piopt ..." and "commit ..."
#                                                           [F_VERSION*]
#  F4 DURATION (NNN-*.out and NNN-*.err only) Go/printf durations such as
#              15ms, 0s, 1.2s, 1m3.5s, 250µs -> <DUR>       [F_DUR]
#  F6 STAGE TIMES (every text file) numbers inside a multi-line JSON
#              "seconds": { ... } object (experiment's result-KEY.json keeps
#              its stages' wall times there) -> <N>         [F_SECONDS]
#  F7 SEALS   (every text file) the SHA-256 seal that resume files carry of
#              their own bytes (a JSON "sha256": "HEX" field, a targets
#              file's last "# sha256=HEX" line): it covers F2 keys and F6
#              stage times, so it varies with them -> <SEAL>  [F_SEAL]
#  F5 RUN RECORDS (files named run.json or *.run.json, which hold only
#              what varies between runs): "start" and "hostname" values ->
#              <X>; every number except a "fold" number -> <N> (keys and
#              "reused" flags are kept)                      [F_RUNREC]
#
# Not compared file by file: the raw parse-cache entries (cache/*.dataset,
# cache2/*, home/.cache/piopt/*: named by a hash of their absolute source path
# and holding it and its mtime); run.sh summarises them in cache-manifest.txt,
# which is compared.
# ===========================================================================
set -u
export LC_ALL=C

F_KEY='s/-[0-9a-f]{16}\b/-<KEY>/g'
F_VERSION_JSON='s/"piopt_version": *"[^"]*"/"piopt_version": "<VERSION>"/g'
F_VERSION_HTML='s/<p>piopt [^<]*, XGBoost/<p>piopt <VERSION>, XGBoost/g'
F_VERSION_HELP='/^VERSION:$/{n;s/.*/   <VERSION>/;}'
F_VERSION_OUT='s/^piopt .*/piopt <VERSION>/; s/^commit .*/commit <VERSION>/'
DUR='[0-9]+(\.[0-9]+)?(h|m|s|ms|µs|us|ns)([0-9]+(\.[0-9]+)?(h|m|s|ms|µs|us|ns))*'
F_DUR="s/(^|[^A-Za-z0-9_.])$DUR([^A-Za-z0-9_]|\$)/\\1<DUR>\\7/g"
F_RUNREC='s/"(start|hostname)": *"[^"]*"/"\1": "<X>"/; /"fold": *[0-9]+/!s/-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/<N>/g'
F_SECONDS='/"seconds": *\{ *$/,/^ *\},? *$/s/(": *)-?[0-9][0-9.eE+-]*/\1<N>/'
F_SEAL='s/"sha256": *"[0-9a-f]{64}"/"sha256": "<SEAL>"/; s/^# sha256=[0-9a-f]{64}$/# sha256=<SEAL>/'
EXCLUDE='^(cache/|cache2/|home/\.cache/piopt/)'

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: $0 OUTDIR_A OUTDIR_B" >&2; exit 2
fi

# escape a literal for a sed regex (delimiter |)
sed_escape() { printf '%s' "$1" | sed -e 's/[]\/$*.^|[]/\\&/g'; }
sed_outdir() {
  local given=$1 real
  real=$(realpath "$1")
  printf 's|%s|<OUTDIR>|g;' "$(sed_escape "$real")"
  if [ "${given%/}" != "$real" ]; then printf 's|%s|<OUTDIR>|g;' "$(sed_escape "${given%/}")"; fi
  # where run.sh wrote it (differs from realpath when the OUTDIR was moved)
  local rec
  rec=$(cat "$1/outdir.txt" 2>/dev/null)
  if [ -n "$rec" ] && [ "$rec" != "$real" ]; then printf 's|%s|<OUTDIR>|g;' "$(sed_escape "$rec")"; fi
}

TMP=$(mktemp -d) || exit 2
trap 'rm -rf "$TMP"' EXIT

# normalise FILE (relative to ROOT) with OUTDIR filter OUTF, to stdout
normalise() {
  local root=$1 rel=$2 outf=$3 f=$1/$2 base=${2##*/}
  if [ ! -s "$f" ]; then return; fi
  if ! grep -Iq '' "$f"; then sed -E "$outf $F_KEY" "$f"; return; fi # binary
  local prog="$outf $F_KEY; $F_VERSION_JSON; $F_VERSION_HTML; $F_SECONDS; $F_SEAL"
  case "$rel" in
    [0-9][0-9][0-9]-*.out | [0-9][0-9][0-9]-*.err)
      prog="$prog; $F_DUR; $F_DUR; $F_VERSION_HELP"
      case "$rel" in [0-9][0-9][0-9]-version*.out) prog="$prog; $F_VERSION_OUT" ;; esac ;;
  esac
  case "$base" in run.json | *.run.json) prog="$prog; $F_RUNREC" ;; esac
  sed -E "$prog" "$f"
}

# list SIDE ROOT: "normalised-name<TAB>relative-path" lines
list() {
  (cd "$1" && find . -type f -printf '%P\n') | grep -Ev "$EXCLUDE" |
    while IFS= read -r rel; do
      printf '%s\t%s\n' "$(printf '%s' "$rel" | sed -E "$F_KEY")" "$rel"
    done | sort
}

# content NAME SIDE ROOT OUTF LISTFILE > file: normalised content of the group NAME
content() {
  local name=$1 root=$2 outf=$3 lst=$4 out=$5
  local members
  members=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' "$lst")
  if [ "$(printf '%s\n' "$members" | wc -l)" -eq 1 ]; then
    normalise "$root" "$members" "$outf" >"$out"
  else
    # a group: the sorted multiset of the members' normalised contents
    local i=0 m
    mkdir -p "$TMP/grp"; rm -f "$TMP/grp/"*
    while IFS= read -r m; do
      i=$((i + 1)); normalise "$root" "$m" "$outf" >"$TMP/grp/$i"
    done <<<"$members"
    for m in "$TMP/grp/"*; do printf '%s %s\n' "$(sha256sum <"$m" | cut -c1-64)" "$m"; done | sort |
      while read -r _ m; do printf '=== group member ===\n'; cat "$m"; done >"$out"
  fi
}

OA=$(sed_outdir "$1"); OB=$(sed_outdir "$2")
list "$1" >"$TMP/la"; list "$2" >"$TMP/lb"
cut -f1 "$TMP/la" | uniq >"$TMP/na"; cut -f1 "$TMP/lb" | uniq >"$TMP/nb"
sort -u "$TMP/na" "$TMP/nb" >"$TMP/all"

n=0 k=0
while IFS= read -r name; do
  n=$((n + 1))
  ina=$(grep -Fxc -- "$name" "$TMP/na"); inb=$(grep -Fxc -- "$name" "$TMP/nb")
  if [ "$ina" -eq 0 ]; then echo "ONLY IN B: $name"; k=$((k + 1)); continue; fi
  if [ "$inb" -eq 0 ]; then echo "ONLY IN A: $name"; k=$((k + 1)); continue; fi
  content "$name" "$1" "$OA" "$TMP/la" "$TMP/a"
  content "$name" "$2" "$OB" "$TMP/lb" "$TMP/b"
  if ! cmp -s "$TMP/a" "$TMP/b"; then
    k=$((k + 1))
    echo "DIFFERS: $name"
    if grep -Iq '' "$TMP/a" 2>/dev/null || grep -Iq '' "$TMP/b" 2>/dev/null; then
      diff -u --label "A/$name" --label "B/$name" "$TMP/a" "$TMP/b" | sed -n '3,12p' | cut -c1-300 | sed 's/^/    /'
      if awk 'length > 300 {f = 1; exit} END {exit !f}' "$TMP/a" "$TMP/b"; then
        # long lines (one-line JSON): show the first differing bytes in context
        off=$(cmp "$TMP/a" "$TMP/b" 2>/dev/null | sed -nE 's/.* (byte|char) ([0-9]+).*/\2/p')
        if [ -n "$off" ]; then
          from=$((off > 100 ? off - 100 : 1))
          echo "    first difference at byte $off of the normalised files:"
          printf '    A: ...%s...\n' "$(tail -c +"$from" "$TMP/a" | head -c 220 | tr '\n\t' '  ')"
          printf '    B: ...%s...\n' "$(tail -c +"$from" "$TMP/b" | head -c 220 | tr '\n\t' '  ')"
        fi
      fi
    else
      cmp "$TMP/a" "$TMP/b" 2>&1 | sed "s|$TMP/a|A/$name|; s|$TMP/b|B/$name|; s/^/    /"
    fi
  fi
done <"$TMP/all"

echo "$n files compared, $k differ"
[ "$k" -eq 0 ]
