#!/usr/bin/env bash
# compute-sanitizer memcheck on the recovery path, again: in run.sh the filter's `head -40`
# called that script's own head() (which prints the header) instead of head(1), so its
# memcheck lines were lost. Same binaries (.device/ev16, commit in COMMIT).
set -u
B=.device/ev16/target/release
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# commit: $(cat .device/ev16/COMMIT)"
for entry in copy_faulting_at_1024 copy_hanging_at_512; do
  extra=""; [ $entry = copy_hanging_at_512 ] && extra="--launch-timeout 5"
  echo "################ $S --tool memcheck --target-processes all faults-example --entry $entry --n 1000003 --block-sizes 256,1024,512 --runs 2 --warmups 0 $extra"
  timeout 300 $S --tool memcheck --target-processes all $B/faults-example --entry $entry --n 1000003 --block-sizes 256,1024,512 --runs 2 --warmups 0 $extra > /tmp/memcheck.log 2>&1
  echo "# exit status: $?"
  grep -E "ERROR SUMMARY|Invalid __global__|Address 0x|by thread|========= +at |check failed|threads per block:|Error:" /tmp/memcheck.log | head -30
done
