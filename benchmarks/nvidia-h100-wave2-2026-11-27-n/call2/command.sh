set -x
R=$OUT/../r2; mkdir -p $R
pack() { cp .ab/call2.sh .ab/diag.diff $R/; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
cases() {  # $1: tag, $2: runs a sample
  .ab/d run stream --kernel copy,triad --precision f32 --size small --samples 20 --runs-per-sample $2 --json $R/s-small-$1.json > /dev/null 2>&1
  .ab/d run stream --kernel copy,triad --precision f32 --samples 20 --runs-per-sample $2 --json $R/s-$1.json > /dev/null 2>&1
  .ab/d run lbm --kernel fused --layout aosoa-32 --precision f32 --wg 256 --set pull=rows --samples 20 --runs-per-sample $2 --json $R/lbm-$1.json > /dev/null 2>&1
  .ab/d run comd --size default --kernel force --precision f32 --layout aos --variant cell --wg 256 --set stage=512 --samples 20 --runs-per-sample $2 --json $R/comd32-$1.json > /dev/null 2>&1
  .ab/d run comd --size default --kernel force --precision f64 --layout aos --variant cell --wg 128 --samples 20 --runs-per-sample $2 --json $R/comd64-$1.json > /dev/null 2>&1
  .ab/d run milc --set complex=pairs --kernel dslash-fused --layout aosoa-32 --wg 512 --precision f32 --samples 20 --runs-per-sample $2 --json $R/milc-$1.json > /dev/null 2>&1
}
for r in 1 2; do
  SKYLIGHT_DIAG= cases base-r$r 1
  SKYLIGHT_DIAG=submit1 cases submit1-r$r 1
  SKYLIGHT_DIAG=prerun cases prerun-r$r 1
  SKYLIGHT_DIAG=passes cases passes-r$r 1
  SKYLIGHT_DIAG= cases r20-r$r 20
done
SKYLIGHT_DIAG=prerun,submit1 cases both-r1 1
