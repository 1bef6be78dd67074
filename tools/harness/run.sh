#!/usr/bin/env bash
# run.sh BIN OUTDIR — byte-identity regression harness for piopt.
#
# Runs a fixed, ordered list of piopt commands with the binary BIN. Command
# number NNN named NAME runs in its own working directory OUTDIR/work/NAME
# (relative outputs land there) and leaves OUTDIR/NNN-NAME.out (stdout),
# .err (stderr), .rc (exit status) and .cmd (the command line, BIN shown as
# piopt; FROM= copies are made by run.sh before the command). Inputs shared between commands are
# referenced by relative paths (../NAME/FILE) so that OUTDIR's location
# matters as little as possible. Fixtures (small data slices, hand-written
# policy files and logs, broken files for the error cases) are made by plain
# shell under OUTDIR/work/fixtures (and from synth's output under
# OUTDIR/work/synth-fixtures) before/after the synth command.
#
# Every command runs under `env -i` with a fixed environment (LC_ALL=C,
# TZ=UTC, HOME=OUTDIR/home, PIOPT_CACHE=OUTDIR/cache, no TERM), stdin
# /dev/null, and a per-command timeout of $TIMEOUT seconds (rc 124 on a hang).
# The parse cache's raw entries (OUTDIR/cache/*.dataset: named by a hash of the
# absolute source path and holding that path and the source's mtime) are
# summarised at the end into OUTDIR/cache-manifest.txt (normalised header and
# SHA-256 of the body), which compare.sh compares instead of the raw files.
#
# Usage: run.sh BIN OUTDIR      (OUTDIR must not exist or be empty)
set -u

if [ $# -ne 2 ]; then echo "usage: $0 BIN OUTDIR" >&2; exit 2; fi
BIN=$(realpath "$1") || exit 2
OUT=$2
[ -x "$BIN" ] || { echo "$0: $BIN is not executable" >&2; exit 2; }
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
  echo "$0: $OUT exists and is not empty" >&2; exit 2
fi
mkdir -p "$OUT" && OUT=$(realpath "$OUT")
W=$OUT/work
mkdir -p "$W" "$OUT/home" "$OUT/cache"
printf '%s\n' "$OUT" >"$OUT/outdir.txt" # compare.sh normalises this path too
# BIN runs as "piopt" (a symlink OUTDIR/bin/piopt found on PATH), so that its
# argv[0], which piopt echoes in provenance "command" fields, does not depend
# on BIN's file name. compare.sh skips symlinks.
mkdir -p "$OUT/bin" && ln -s "$BIN" "$OUT/bin/piopt"
TIMEOUT=${TIMEOUT:-300}
DATA=${PIOPT_SHARED_DATA:-$(realpath "$(dirname "$0")/../../../shared/data")}
T0=$(date +%s)

N=0
# run NAME ARGS... : run "$BIN ARGS..." in OUTDIR/work/NAME (a new folder;
# FROM=OTHER first copies the folder of the earlier command OTHER, with cp -a,
# for reruns that must see its outputs, e.g. resumed or reused runs).
run() {
  local name=$1; shift
  N=$((N + 1))
  local id
  id=$(printf '%03d-%s' "$N" "$name")
  local wd
  wd=$W/$name
  if [ -e "$wd" ]; then echo "$0: duplicate command name $name" >&2; exit 3; fi
  if [ -n "${FROM:-}" ]; then
    cp -a "$W/$FROM" "$wd"
  else
    mkdir -p "$wd"
  fi
  # the command line, for rerunning one command by hand (BIN shown as piopt)
  { printf 'cd work/%s &&' "${wd##*/}"; [ -n "${EXTRA_ENV:-}" ] && printf ' %s' "$EXTRA_ENV"
    printf ' piopt'; printf ' %q' "$@"; printf '\n'; } >"$OUT/$id.cmd"
  (
    cd "$wd" || exit 99
    exec env -i PATH="$OUT/bin:/usr/local/bin:/usr/bin:/bin" HOME="$OUT/home" LC_ALL=C TZ=UTC \
      PIOPT_CACHE="$OUT/cache" ${EXTRA_ENV:-} \
      timeout "$TIMEOUT" piopt "$@"
  ) </dev/null >"$OUT/$id.out" 2>"$OUT/$id.err"
  echo $? >"$OUT/$id.rc"
  printf '%s rc=%s\n' "$id" "$(cat "$OUT/$id.rc")" >>"$OUT/.progress"
}

# ---------------------------------------------------------------- fixtures
F=$W/fixtures
mkdir -p "$F/mq"
# first N queries of a LETOR file (keeps CRLF and comments)
firstq() { awk -v n="$1" '{q=$2; if (q != p) {c++; p = q} if (c > n) exit; print}' "$2"; }
firstq 30 $DATA/MQ2008/Fold1/train.txt >"$F/mq/train.txt"
firstq 10 $DATA/MQ2008/Fold1/vali.txt >"$F/mq/vali.txt"
firstq 10 $DATA/MQ2008/Fold1/test.txt >"$F/mq/test.txt"
gzip -n -c "$F/mq/test.txt" >"$F/mq/test-gz.txt.gz"
# a bad value in line 3, field 4
awk 'NR==3 {$4="2:abc"} {print}' "$F/mq/vali.txt" >"$F/mq/bad-value.txt"
# LightGBM layout: no qid:, group sizes in FILE.query (first 5 groups)
head -5 $DATA/LightGBM-lambdarank/examples/lambdarank/rank.test.query >"$F/lgb.txt.query"
head -n "$(awk '{s+=$1} END {print s}' "$F/lgb.txt.query")" $DATA/LightGBM-lambdarank/examples/lambdarank/rank.test >"$F/lgb.txt"

# --------------------------------------------------------- help and version
run help-root --help
run help-cmd help
run help-h -h
run version --version
run version-v -v
for c in synth stats simulate impute train predict rank experiment evaluate evaluate-sweep evaluate-grid select cache; do
  run "help-$c" "$c" --help
done
run help-cache-dir cache dir --help
run help-cache-clean cache clean --help
run help-of-rank help rank
run help-cache-sub cache help
run no-args

# ------------------------------------------------------------------- synth
run synth synth --out folds --queries 30 --seed 7
run synth-small synth --out small --queries 10 --seed 2 --threads 1
S=../synth/folds
TR=$S/Fold1/train.txt VA=$S/Fold1/vali.txt TE=$S/Fold1/test.txt
MQ=../fixtures/mq

# fixtures made from synth's output
SF=$W/synth-fixtures
mkdir -p "$SF"
# LETOR 3.0 layout without training files, for experiment --assemble-train:
# FoldK validates on S(K+3) and tests on S(K+4) (mod 5)
for k in 1 2 3 4 5; do
  mkdir -p "$SF/letor3/Fold$k"
  v=$(( (k + 2) % 5 + 1 )); t=$(( (k + 3) % 5 + 1 ))
  cp "$W/synth/folds/S$v.txt" "$SF/letor3/Fold$k/validationset.txt"
  cp "$W/synth/folds/S$t.txt" "$SF/letor3/Fold$k/testset.txt"
done
# a hand-written policy file (slots=2) on Fold1/test.txt's queries 25..30 with
# every spec kind, and a log drawn from it by a fixed LCG
cat >"$SF/hand.policy" <<'EOF'
# piopt-policy v1 slots=2
25	uniform	0,1,2,3
25@b	pa:1	3,2,1,0,4
26	pl:0.5	0:1.0,1:0.5,2:0.2,3:-0.3
27	eps:0.2,pa:2	0,1,2,3,4
28	slates	0 1=0.5,1 2=0.3,2 0=0.2
29	eps:0.3,uniform	5,6,7
EOF
awk 'BEGIN {
  x = 12345
  ctx[0] = "25"; ctx[1] = "25@b"; ctx[2] = "26"; ctx[3] = "27"; ctx[4] = "28"; ctx[5] = "29"
  cand[0] = "0 1 2 3"; cand[1] = "3 2 1 0 4"; cand[2] = "0 1 2 3"; cand[3] = "0 1 2 3 4"; cand[5] = "5 6 7"
  print "# piopt-log v1 slots=2 policy=hand.policy metric=ndcg@2"
  for (i = 0; i < 300; i++) {
    x = (x * 16807) % 2147483647; c = x % 6
    x = (x * 16807) % 2147483647; r = x % 10000 / 10000
    if (c == 4) {
      x = (x * 16807) % 2147483647; k = x % 3
      s = (k == 0) ? "0,1" : (k == 1) ? "1,2" : "2,0"
    } else {
      n = split(cand[c], a, " ")
      x = (x * 16807) % 2147483647; p = x % n + 1
      x = (x * 16807) % 2147483647; q = x % (n - 1) + 1; if (q >= p) q++
      s = a[p] "," a[q]
    }
    printf "%s\t%s\t%.4f\n", ctx[c], s, r
  }
}' >"$SF/hand.log"
# the same policy with probabilities that do not sum to 1
sed 's/2 0=0.2/2 0=0.3/' "$SF/hand.policy" >"$SF/bad-sum.policy"
sed 's/policy=hand.policy/policy=bad-sum.policy/' "$SF/hand.log" >"$SF/bad-sum.log"
# a slate the policy cannot draw (doc 9 not among context 25's candidates)
awk 'NR==1 {print; next} !done && $1=="25" {sub(/\t[0-9]+,[0-9]+\t/, "\t9,1\t"); done=1} {print}' "$SF/hand.log" >"$SF/bad-slate.log"
# a targets file with a malformed line
printf '# piopt-targets v1 slots=3\n25\t0\t1\t0.5\t0.1\n25\t1\tx\t0.5\t0.1\n' >"$SF/bad.targets"
HP=../synth-fixtures

# ------------------------------------------------------------------- stats
run stats-fold1 stats $TR $VA $TE
run stats-json stats --json --all-grades $S/S1.txt $S/S2.txt
run stats-json-nograde stats --json $S/S3.txt
run stats-mq stats --max-label 2 $MQ/train.txt $MQ/vali.txt $MQ/test.txt
run stats-mq-gz stats --max-label 2 --json $MQ/test-gz.txt.gz
run stats-mq-allgrades stats --all-grades --max-label 2 $MQ/test.txt
run stats-mslr-sample stats $DATA/MSLR-WEB-sample10/test_data/mslr_sample.txt
run stats-lgb stats --json ../fixtures/lgb.txt
run stats-lgb-qfile stats --query-file ../fixtures/lgb.txt.query --features 300 ../fixtures/lgb.txt
run stats-nocache stats --no-cache --features 140 $S/S4.txt
run stats-cachedir stats --cache-dir ../../cache2 $S/S5.txt
printf 'not a folder\n' >"$F/not-a-folder"
run stats-cache-notafolder stats --cache-dir ../fixtures/not-a-folder $S/S3.txt
run stats-ohsumed stats --max-label 2 $DATA/OHSUMED-LETOR3/QueryLevelNorm/Fold1/vali.txt

# ---------------------------------------------------------------- simulate
run sim-uni-ndcg simulate --data $TR --slots 3 --metric ndcg --logging uniform --samples 20000 --seed 1 --out train.log
run sim-uni-err simulate --data $TR --slots 3 --metric err --logging uniform --samples 20000 --seed 1 --out train-err.log
run sim-vali simulate --data $VA --slots 3 --metric ndcg --logging uniform --samples 8000 --seed 5 --out vali.log
run sim-pa simulate --data $TE --slots 3 --metric ndcg --logging pa:1 --rank-by feature:130 --candidates 10 --samples 6000 --seed 2 --out test.log
run sim-pa-err simulate --data $TE --slots 3 --metric err --logging pa:0.5 --rank-by feature:24 --candidates 8 --samples 4000 --seed 3 --out test-err.log
run sim-eps simulate --data $TE --slots 3 --metric ndcg --logging eps:0.1,pa:2 --rank-by feature:130 --candidates 10 --samples 4000 --seed 4 --out eps.log
run sim-eps-uni simulate --data $TE --slots 2 --metric err --logging eps:0.5,uniform --candidates 6 --samples 3000 --seed 4 --out epsu.log
run sim-pl simulate --data $TE --slots 3 --metric ndcg --logging pl:0.5 --rank-by feature:130 --candidates 6 --samples 4000 --seed 6 --out pl.log --policy-out pl.policy
run sim-candby simulate --data $TE --slots 3 --metric ndcg --logging pa:1 --rank-by lasso:url-side --candidates-by tree:url-side --candidates 10 --samples 3000 --seed 8 --out candby.log
run sim-conv simulate --data $TE --slots 4 --metric ndcg --logging uniform --discount max2 --empty-ndcg 1 --samples 3000 --seed 9 --out conv.log
run sim-conv-err simulate --data $TE --slots 2 --metric err --logging uniform --maxrel 4 --samples 3000 --seed 9 --out conv-err.log
run sim-tree-depth simulate --data $TE --slots 3 --metric ndcg --logging pa:2 --rank-by tree:body@3 --candidates 12 --samples 2000 --seed 10 --out tree.log
run sim-lasso-l1 simulate --data $TE --slots 3 --metric err --logging pa:1 --rank-by lasso:doc+1-5@0.1 --candidates 12 --samples 2000 --seed 10 --out lasso.log
run sim-nocand simulate --data $TE --slots 3 --metric ndcg --logging uniform --candidates 5 --samples 2000 --seed 11 --out nocand.log
run sim-devnull simulate --data $TE --slots 3 --metric ndcg --logging uniform --samples 100 --seed 1 --out /dev/null
run sim-gz-data simulate --data $MQ/test-gz.txt.gz --max-label 2 --slots 3 --metric ndcg --logging uniform --samples 1000 --seed 1 --out gz.log

# ------------------------------------------------------------------ impute
run imp-logs impute --data $TR --logs ../sim-uni-ndcg/train.log --out train.targets
run imp-stream impute --data $TR --samples 20000 --metric ndcg --seed 1 --slots 3 --logging uniform --out train.targets
run imp-oldname impute --data $TR --simulate 20000 --metric ndcg --seed 1 --slots 3 --logging uniform --out train.targets
run imp-err impute --data $TR --logs ../sim-uni-err/train-err.log --out train-err.targets
run imp-persample impute --data $TR --logs ../sim-uni-ndcg/train.log --per-sample --out train-ps.targets
run imp-vali impute --data $VA --logs ../sim-vali/vali.log --out vali.targets
run imp-pa impute --data $TE --logs ../sim-pa/test.log --out test.targets
run imp-eps impute --data $TE --logs ../sim-eps/eps.log --out eps.targets
run imp-eps-uni impute --data $TE --logs ../sim-eps-uni/epsu.log --out epsu.targets
run imp-pl-header impute --data $TE --logs ../sim-pl/pl.log --out pl.targets
run imp-pl-flag impute --data $TE --logs ../sim-pl/pl.log --policy ../sim-pl/pl.policy --out pl.targets
run imp-hand impute --data $TE --logs $HP/hand.log --out hand.targets
run imp-hand-ps impute --data $TE --logs $HP/hand.log --policy $HP/hand.policy --per-sample --out hand.targets
run imp-candby impute --data $TE --logs ../sim-candby/candby.log --out candby.targets
run imp-tree impute --data $TE --logs ../sim-tree-depth/tree.log --out tree.targets
run imp-conv impute --data $TE --logs ../sim-conv/conv.log --out conv.targets
run imp-stream-pa impute --data $TE --samples 3000 --metric err --seed 3 --slots 3 --logging pa:1 --rank-by feature:130 --candidates 10 --discount max2 --out s.targets
mkdir -p "$W/fixtures-noheader"
tail -n +2 "$W/sim-pa/test.log" >"$W/fixtures-noheader/test-nohdr.log"
tail -n +2 "$W/sim-uni-ndcg/train.log" >"$W/fixtures-noheader/train-nohdr.log"
NH=../fixtures-noheader
run imp-noheader impute --data $TE --logs $NH/test-nohdr.log --slots 3 --logging pa:1 --rank-by feature:130 --candidates 10 --out nohdr.targets
run imp-noheader-uni impute --data $TR --logs $NH/train-nohdr.log --slots 3 --logging uniform --out nohdr.targets

# ------------------------------------------------------------------- train
TRAIN="--trees 12 --leaves 8"
run train-pi train --data $TR --targets ../imp-logs/train.targets $TRAIN --threads 1 --json pi-rounds.json --out pi.model
run train-pi-err train --data $TR --targets ../imp-err/train-err.targets $TRAIN --out pi-err.model
run train-pi-valid train --data $TR --targets ../imp-logs/train.targets --valid-data $VA --valid-targets ../imp-vali/vali.targets \
  --select-by value --base-score 0.5 --learning-rate 0.05 --early-stopping 4 --trees 20 --leaves 8 --threads 1 --json valid.json --out piv.model
run train-pi-rmse train --data $TR --targets ../imp-persample/train-ps.targets --valid-data $VA --valid-targets ../imp-vali/vali.targets \
  --early-stopping 3 --trees 15 --leaves 6 --out pir.json
run train-pi-subsample train --data $TR --targets ../imp-logs/train.targets --trees 8 --leaves 8 --subsample 0.7 --seed 3 \
  --max-bin 32 --min-child-weight 0.5 --lambda 2 --threads 1 --out pis.model
run train-sup train --sup --data $TR $TRAIN --out sup.model
run train-sup-json train --sup --sup-target relevance --data $TR --valid-data $VA --early-stopping 3 $TRAIN --threads 1 --json sup-rounds.json --out sup.json
run train-lambdamart train --objective rank:ndcg --data $TR --valid-data $VA --eval-metric ndcg@3 --trees 6 --leaves 8 --out lm.model
run train-preset train --sup --preset paper --trees 5 --leaves 4 --data $TR --out paper.model
run train-sup-mq train --sup --data $MQ/train.txt --max-label 2 --trees 10 --leaves 6 --out prod.model
run train-pi-hand train --data $TE --targets ../imp-hand/hand.targets --trees 5 --leaves 4 --out hand.model

# ----------------------------------------------------------------- predict
run predict-pi predict --data $TE --model ../train-pi/pi.model --out pi.scores
run predict-sup-json predict --data $TE --model ../train-sup-json/sup.json --threads 1 --out sup.scores
run predict-pir-json predict --data $TE --model ../train-pi-rmse/pir.json --out pir.scores
run predict-mq-ids predict --data $MQ/test.txt --max-label 2 --doc-ids comment --model ../train-sup-mq/prod.model --out mq.scores
run predict-lm predict --data $TE --model ../train-lambdamart/lm.model --out lm.scores

# -------------------------------------------------------------------- rank
run rank-full rank --data $TE --model ../train-pi/pi.model --sup-model ../train-sup/sup.model --slots 3 --out test.run --json summary.json --per-query pq.tsv
run rank-exact rank --data $TE --model ../train-pi-valid/piv.model --slate exact --metrics ndcg --out exact.run --json exact.json
run rank-sup-only rank --data $TE --model ../train-sup-json/sup.json --metrics err --discount max2 --empty-ndcg 1 --maxrel 4 --out sup.run
run rank-lm rank --data $TE --model ../train-lambdamart/lm.model --sup-model ../train-sup/sup.model --slots 5 --json lm.json
run rank-oldmetric rank --data $TE --model ../train-pi-err/pi-err.model --metric err --per-query pq.tsv
run rank-mq rank --data $MQ/test.txt --max-label 2 --model ../train-sup-mq/prod.model --doc-ids comment --out mq.run --json mq.json

# ---------------------------------------------------- simulate/impute/train on MQ2008 with doc ids from comments
run sim-mq-pl simulate --data $MQ/train.txt --max-label 2 --doc-ids comment --slots 3 --metric ndcg --logging pl:0.5 \
  --rank-by model:../train-sup-mq/prod.model --candidates 20 --samples 5000 --seed 1 --out train.log --policy-out train.policy
run sim-mq-pl-test simulate --data $MQ/test.txt --max-label 2 --doc-ids comment --slots 3 --metric ndcg --logging pl:0.5 \
  --rank-by model:../train-sup-mq/prod.model --candidates 20 --samples 3000 --seed 2 --out test.log --policy-out test.policy
run imp-mq impute --data $MQ/train.txt --max-label 2 --doc-ids comment --logs ../sim-mq-pl/train.log --out train.targets
run train-mq train --data $MQ/train.txt --max-label 2 --doc-ids comment --targets ../imp-mq/train.targets --trees 8 --leaves 6 --out pi-opt.model
run sim-mq-pos simulate --data $MQ/test.txt --max-label 2 --slots 3 --metric err --logging pa:1 --rank-by feature:5 --candidates 8 --samples 2000 --seed 3 --out pos.log

# ---------------------------------------------------------------- evaluate
run eval-pa evaluate --data $TE --logs ../sim-pa/test.log --target model:../train-pi/pi.model --estimators pi,wpi,ips,wips,dm --delta 0.05 --json estimates.json
run eval-default evaluate --data $TE --logs ../sim-pa/test.log --target model:../train-sup/sup.model --bootstrap 50
run eval-all evaluate --data $TE --logs ../sim-pa/test.log --target feature:3 --estimators all --cv-folds 3 --baseline-folds 2 \
  --dm-depth 3 --dm-l1 0.05 --dm-train 0.3 --bootstrap 20 --seed 4 --json all.json
run eval-dr-model evaluate --data $TR --logs ../sim-uni-err/train-err.log --target feature:24 --estimators dr,wdr,pi --baseline model:../train-pi-err/pi-err.model --bootstrap 0
run eval-uniform evaluate --data $TR --logs ../sim-uni-err/train-err.log --target model:../train-pi-err/pi-err.model --slate exact --estimators pi,wpi,ips,wips,onpolicy --bootstrap 30 --json uni.json
run eval-eps evaluate --data $TE --logs ../sim-eps/eps.log --target tree:body-side --estimators pi,wpi,pi-cv,onpolicy --bootstrap 20 --json eps.json
run eval-eps-uni evaluate --data $TE --logs ../sim-eps-uni/epsu.log --target feature:110 --estimators pi,wpi,ips,wips,onpolicy --bootstrap 20
run eval-pl evaluate --data $TE --logs ../sim-pl/pl.log --target lasso:url-side --estimators pi,wpi,ips,wips,onpolicy --bootstrap 20 --json pl.json
run eval-hand evaluate --data $TE --logs $HP/hand.log --policy $HP/hand.policy --target feature:130 --estimators pi,wpi,ips,wips --reward-range 0,1 --bootstrap 20 --json hand.json
run eval-hand-model evaluate --data $TE --logs $HP/hand.log --target model:../train-pi-hand/hand.model --estimators pi,wpi --bootstrap 0
run eval-hand-all evaluate --data $TE --logs $HP/hand.log --target feature:24 --estimators all --cv-folds 2 --baseline-folds 2 --dm-depth 2 --bootstrap 10 --json hand-all.json
run eval-noheader evaluate --data $TE --logs $NH/test-nohdr.log --slots 3 --logging pa:1 --rank-by feature:130 --candidates 10 --metric ndcg \
  --target feature:3 --estimators pi,wpi,onpolicy --bootstrap 10
run eval-candby evaluate --data $TE --logs ../sim-candby/candby.log --target tree:body-side@2 --estimators pi,wpi,dm-linear,dm-clip,dm-linear-clip --bootstrap 10 --json candby.json
run eval-conv evaluate --data $TE --logs ../sim-conv/conv.log --target feature:1 --estimators pi,wpi,onpolicy --delta 0.1 --bootstrap 10 --threads 1
run eval-mq evaluate --data $MQ/test.txt --max-label 2 --doc-ids comment --logs ../sim-mq-pl-test/test.log --target model:../train-mq/pi-opt.model \
  --estimators pi,wpi,ips,wips,onpolicy --bootstrap 20 --json mq.json
run eval-mq-sup evaluate --data $MQ/test.txt --max-label 2 --doc-ids comment --logs ../sim-mq-pl-test/test.log --target model:../train-sup-mq/prod.model \
  --estimators pi,wpi,onpolicy --bootstrap 0
run eval-mq-pos evaluate --data $MQ/test.txt --max-label 2 --logs ../sim-mq-pos/pos.log --target feature:1 --bootstrap 10 --dm-depth 2

# ---------------------------------------------------------- evaluate-sweep
run sweep-uni evaluate-sweep --data $S/S1.txt --candidates 10 --slots 3 --metric ndcg --logging uniform --rank-by feature:130 \
  --target feature:24 --samples 2000 --runs 3 --seed 1 --min-samples 100 --points-per-decade 2 \
  --estimators pi,wpi,ips,wips,onpolicy --json sweep.json --html sweep.html
run sweep-all evaluate-sweep --data $S/S1.txt --candidates 10 --slots 3 --metric err --logging pa:1 --rank-by tree:url-side \
  --target tree:body-side --samples 1000 --runs 2 --seed 3 --min-samples 200 --points-per-decade 1 \
  --estimators all --dm-max-train 300 --cv-folds 3 --baseline-folds 2 --dm-depth 3 --json all.json
run sweep-html-only evaluate-sweep --data $S/S2.txt --candidates 8 --slots 2 --logging eps:0.2,pa:1 --rank-by feature:130 \
  --candidates-by feature:24 --target model:../train-pi/pi.model --slate exact --samples 1000 --runs 2 --min-samples 100 \
  --points-per-decade 1 --estimators pi,wpi,pi-cv --html only.html
run sweep-stdout evaluate-sweep --data $MQ/test.txt --max-label 2 --candidates 5 --slots 2 --logging uniform --rank-by feature:5 \
  --target feature:10 --samples 500 --runs 2 --min-samples 100 --points-per-decade 1 --estimators pi,wpi,ips --threads 1

# ----------------------------------------------------------- evaluate-grid
run grid evaluate-grid --data $S/S1.txt --spaces 10x5 --metrics ndcg --samples 1000 --runs 2 --aggregate-at 1000 \
  --min-samples 100 --points-per-decade 1 --estimators pi,wpi,ips,wips --out grid
FROM=grid run grid-resume evaluate-grid --data $S/S1.txt --spaces 10x5 --metrics ndcg --samples 1000 --runs 2 --aggregate-at 1000 \
  --min-samples 100 --points-per-decade 1 --estimators pi,wpi,ips,wips --out grid
run grid-dm evaluate-grid --data $S/S2.txt --spaces 10x5 --metrics err --samples 600 --runs 2 --aggregate-at 600 \
  --min-samples 200 --points-per-decade 1 --logging-models tree:url-side --targets lasso:body-side \
  --estimators pi,wpi,dm,dr --dm-max-train 200 --baseline-folds 2 --out grid

run grid-full evaluate-grid --data $S/S3.txt --spaces 10x5,100x10 --metrics err,ndcg --logging-models tree:url-side \
  --targets lasso:body-side --samples 500 --runs 2 --aggregate-at 500 --min-samples 100 --points-per-decade 1 \
  --dm-max-train 100 --baseline-folds 2 --cv-folds 2 --out grid

# ------------------------------------------------------------------ select
run select select --data $TE --logs ../sim-pa/test.log --models ../train-sup/sup.model,feature:3,bm25=feature:110,pi=../train-pi/pi.model --json select.json
run select-pi-boot select --data $TE --logs ../sim-pa/test.log --models feature:3,feature:24,feature:130 --estimator pi --interval bootstrap --bootstrap 50 --seed 2
run select-eb select --data $TE --logs ../sim-eps/eps.log --models tb=tree:body-side,la=lasso:url-side --policy-data $TR --estimator wips \
  --interval empirical-bernstein --delta 0.1 --json eb.json
run select-hand select --data $TE --logs $HP/hand.log --models feature:1,feature:2,m=model:../train-pi-hand/hand.model --estimator ips --json hand.json
run select-noheader select --data $TE --logs $NH/test-nohdr.log --slots 3 --logging pa:1 --rank-by feature:130 --candidates 10 --metric ndcg \
  --models feature:3,feature:4 --slate exact
run select-mq select --data $MQ/test.txt --max-label 2 --doc-ids comment --logs ../sim-mq-pl-test/test.log \
  --models ../train-mq/pi-opt.model,../train-sup-mq/prod.model --json mq.json

# -------------------------------------------------------------- experiment
EXP="--samples 20000 --trees 20 --leaves 6 --early-stopping 5"
run exp experiment --folds $S --only-folds 1,2 --slots 3 $EXP --seed 1 --out res
FROM=exp run exp-rerun experiment --folds $S --only-folds 1,2 --slots 3 $EXP --seed 1 --out res
run exp-onefold experiment --folds $S --only-folds 3 --slots 2 $EXP --metrics ndcg --lambdamart --sup-target relevance \
  --select-by rmse --base-score mean --slate exact --per-sample --valid-samples 1000 --pi-learning-rate 0.2 --out res
run exp-grid experiment --folds $S --only-folds 1 --slots 3 $EXP --metrics err --grid 'leaves=4,8;lr=0.1' --out res
run exp-assemble experiment --folds $HP/letor3 --assemble-train --only-folds 2 --slots 3 $EXP --out res
run exp-preset experiment --folds $S --only-folds 4 --preset paper --trees 6 --leaves 4 --samples 2000 --metrics ndcg --out res

# ------------------------------------------------------------------- cache
run cache-dir cache dir
EXTRA_ENV="PIOPT_CACHE=" run cache-dir-home cache dir
run cache-dir-flag cache dir --cache-dir ../../cache2
run cache-clean-2 cache clean --cache-dir ../../cache2
run cache-clean-2-again cache clean --cache-dir ../../cache2
run cache-clean-missing cache clean --cache-dir no-such-folder

# ------------------------------------------------------------- error cases
run err-unknown-cmd frobnicate
run err-unknown-flag simulate --data $TE --slot 3 --logging uniform --samples 10 --out x.log
run err-missing-required simulate --data $TE --logging uniform --out x.log
run err-bad-logging simulate --data $TE --logging foo:1 --samples 10 --out x.log
run err-pa-no-rankby simulate --data $TE --logging pa:1 --samples 10 --out x.log
run err-missing-file stats no-such-file.txt
run err-missing-data train --sup --data no-such.txt --out x.model
run err-bad-value stats $MQ/bad-value.txt
run err-same-file simulate --data $TE --logging uniform --samples 10 --out $TE
run err-neg-threads train --sup --data $TR --threads -1 --out x.model
mkdir -p "$W/fixtures-bad"
awk 'NR==6 {$0 = $1 "\t" $2 "\tabc"} {print}' "$W/sim-pa/test.log" >"$W/fixtures-bad/bad-reward.log"
awk 'NR==8 {$0 = $1 "\t1,1,2\t0.5"} {print}' "$W/sim-pa/test.log" >"$W/fixtures-bad/repeat-doc.log"
awk 'NR==4 {$0 = "999999\t0,1,2\t0.5"} {print}' "$W/sim-pa/test.log" >"$W/fixtures-bad/unknown-qid.log"
run err-malformed-log impute --data $TE --logs ../fixtures-bad/bad-reward.log --out x.targets
run err-repeat-doc evaluate --data $TE --logs ../fixtures-bad/repeat-doc.log --target feature:3
run err-unknown-qid impute --data $TE --logs ../fixtures-bad/unknown-qid.log --out x.targets
run err-header-slots impute --data $TE --logs ../sim-pa/test.log --slots 4 --out x.targets
run err-header-logging evaluate --data $TE --logs ../sim-pa/test.log --logging pa:2 --target feature:3
run err-header-data impute --data $TR --logs ../sim-pa/test.log --out x.targets
run err-noheader-noflags impute --data $TE --logs $NH/test-nohdr.log --out x.targets
run err-noheader-no-rankby evaluate --data $TE --logs $NH/test-nohdr.log --slots 3 --logging pa:1 --target feature:3
run err-target-kind evaluate --data $TE --logs ../sim-pa/test.log --target foo:1
run err-target-feature evaluate --data $TE --logs ../sim-pa/test.log --target feature:999
run err-estimator evaluate --data $TE --logs ../sim-pa/test.log --target feature:3 --estimators pi,bogus
run err-policy-sum impute --data $TE --logs $HP/bad-sum.log --out x.targets
run err-policy-slate evaluate --data $TE --logs $HP/bad-slate.log --target feature:3 --estimators pi
run err-bad-targets train --data $TE --targets $HP/bad.targets --trees 2 --out x.model
run err-missing-model rank --data $TE --model no-such.model
run err-select-estimator select --data $TE --logs ../sim-pa/test.log --models feature:3 --estimator bogus
run err-select-tree-nopolicydata select --data $TE --logs ../sim-pa/test.log --models tree:body-side
run err-metric simulate --data $TE --metric map --logging uniform --samples 10 --out x.log
run err-doc-ids simulate --data $TE --doc-ids comment --logging uniform --samples 10 --out x.log
run err-doc-ids-mode stats --doc-ids bogus $TE
run err-grid-space evaluate-grid --data $S/S1.txt --spaces 10by5 --out g
run err-exp-folds experiment --folds no-such-folds --out r
run err-exp-pa experiment --folds $S --logging pa:1 --out r
run err-exp-grid experiment --folds $S --grid 'depth=3' --out r
run err-cache-sub cache bogus
run err-predict-model predict --data $TE --model ../train-sup/sup.model --out ../train-sup/sup.model
run err-rank-slots rank --data $TE --model ../train-pi/pi.model --slots 5

# ------------------------------------------- Plackett–Luce by quadrature
# m = 50, ℓ = 5 with distinct scores is beyond the exact programme's work
# limit, so Γ's moments come from the clock quadrature: the only cases here
# that reach it (appended last, so that the earlier cases keep their
# numbers). feature:47 gives full-rank Γs (the fast solve path); feature:130
# is so peaked that the eigenvalue cut-off keeps rank 7.
run sim-pl-quad simulate --data $TE --slots 5 --metric ndcg --logging pl:1 --rank-by feature:47 --candidates 50 --samples 3000 --seed 12 --out plq.log --policy-out plq.policy
run eval-pl-quad evaluate --data $TE --logs ../sim-pl-quad/plq.log --target lasso:url-side --estimators pi,wpi,ips,wips,onpolicy --bootstrap 0 --json plq.json
run sim-pl-quad-peaked simulate --data $TE --slots 5 --metric ndcg --logging pl:1 --rank-by feature:130 --candidates 50 --samples 3000 --seed 12 --out plqp.log
run eval-pl-quad-peaked evaluate --data $TE --logs ../sim-pl-quad-peaked/plqp.log --target lasso:url-side --estimators pi,wpi,onpolicy --bootstrap 0 --json plqp.json

# ------------------------------------------------------- cache manifest
# Raw cache entries are named by a hash of their source's absolute path and
# hold that path and its mtime: summarise them with OUTDIR replaced and the
# mtime dropped, plus the SHA-256 of everything after the header.
python3 - "$OUT" >"$OUT/cache-manifest.txt" <<'EOF'
import hashlib, os, re, struct, sys
out = sys.argv[1]
rows = []
for d in ("cache", "cache2", "home/.cache/piopt"):
    p = os.path.join(out, d)
    if not os.path.isdir(p):
        continue
    for name in sorted(os.listdir(p)):
        b = open(os.path.join(p, name), "rb").read()
        if b[:8] == b"piopt-ds" and len(b) >= 16:
            hl = struct.unpack("<I", b[12:16])[0]
            hdr = b[16:16 + hl].decode("utf-8", "replace")
            body = bytearray(b[16 + hl:])
            # the file ends with a CRC that covers the header too, so it
            # changes with the source's path and mtime: blank it
            body[-4:] = b"\0\0\0\0"
            hdr = "|".join(l.replace(out, "<OUTDIR>") for l in hdr.split("\n") if l and not l.startswith("mtime="))
            hdr = re.sub(r"-[0-9a-f]{16}\b", "-<KEY>", hdr)  # experiment's stage keys (see compare.sh)
            rows.append("%s\tversion=%d\t%s\tbody-bytes=%d\tbody-sha256=%s" % (d, struct.unpack("<I", b[8:12])[0], hdr, len(body), hashlib.sha256(body).hexdigest()))
        else:
            rows.append("%s\tnon-cache-file bytes=%d sha256=%s" % (d, len(b), hashlib.sha256(b).hexdigest()))
for r in sorted(rows):
    print(r)
EOF

echo "$N commands in $(( $(date +%s) - T0 )) s; outputs in $OUT"
