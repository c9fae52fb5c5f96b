#!/usr/bin/env bash
# Issue 24's example 2-D kernel on the H200: the tiled transpose of examples/reduce over its
# default block shapes (2d of the default block sizes) x tiles 16, 32 and 64, at N = 8192 and
# N = 4099 (sides no tile divides), every row checked bit for bit against the CPU; beside it
# the device-to-device copy of the same N x N floats (d2d.cu, built here with nvcc), the same
# bytes counted; compute-sanitizer's memcheck, racecheck and synccheck over the transpose; and
# the example's GPU tests. Binaries staged by stage.sh. Everything ends in one archive,
# $OUT/transpose.tgz.
set -u
D=.device/transpose
E=evidence/2026-12-02-h200-transpose
W=/tmp/transpose && rm -rf $W && mkdir -p $W && cd $W || exit 1
R=$OLDPWD
B=$R/$D/target/release; D=$R/$D; E=$R/$E
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $D/COMMIT) ($(cat $D/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
{
  stamp
  echo "# nvcc: $(nvcc --version | tail -1); d2d.cu sha256 $(sha256sum $E/d2d.cu | cut -c1-64)"
  run nvcc -O3 -arch=sm_90 -o d2d $E/d2d.cu
  for n in 8192 4099; do
    run ./d2d $((n * n))
    run $B/transpose-example --provenance --rows $n --cols $n --json transpose-$n.json
    run ./d2d $((n * n))
  done
} > transpose.txt 2>&1
{
  stamp
  for tool in memcheck racecheck synccheck; do
    run compute-sanitizer --tool $tool --error-exitcode 99 $B/transpose-example --rows 67 --cols 131 \
      --block-shapes 32x8,16x16,1x64,64x4 --tiles 16,32,64 --warmups 0 --runs 1 --search exhaustive
  done
} > sanitizer.txt 2>&1
# The test binary runs the example binaries where cargo built them: put them there.
mkdir -p $R/target/release && cp $B/*-example* $R/target/release/
{
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests.txt 2>&1
tar czf "$OUT/transpose.tgz" $(ls *.txt *.json 2>/dev/null)
ls -la "$OUT"
