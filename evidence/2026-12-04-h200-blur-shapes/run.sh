#!/usr/bin/env bash
# Issue 46's shape-dependent shared memory on the H200: the example box blur (examples/reduce,
# blur-example) whose tile and halo follow the block's shape, over its default block shapes (2d of
# the default block sizes) and over 28 hand-picked shapes x radii 1, 2 and 4, at 3840 x 2160 and
# 8191 x 4097 (sides no block divides), every row checked bit for bit against the CPU (on the GPU
# with one radius, on the host with three); compute-sanitizer's memcheck, racecheck and
# synccheck over it; and the GPU tests of the example and of the CLI (REQUIRE_GPU=1). Binaries
# staged by stage.sh. Everything ends in one archive, $OUT/blur.tgz.
set -u
R=$PWD
B=$R/.device/blur/target/release
W=/tmp/blur && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $R/.device/$1/COMMIT) ($(cat $R/.device/$1/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
SHAPES=32x8,16x16,64x4,8x32,128x2,256x1,1x256,32x16,16x32,64x8,8x64,32x32,64x16,128x8,256x4,512x2,1024x1,16x8,8x16,32x4,4x32,64x2,16x4,8x8,32x2,4x16,128x4,64x1
{
  stamp blur
  run $B/blur-example --provenance --json blur-default.json
  run $B/blur-example --radii 1,2,4 --block-shapes $SHAPES --json blur-shapes.json
  run $B/blur-example --width 8191 --height 4097 --block-shapes $SHAPES --grid one-wave --json blur-ragged.json
} > blur.txt 2>&1
{
  stamp blur
  for tool in memcheck racecheck synccheck; do
    run compute-sanitizer --tool $tool --error-exitcode 99 $B/blur-example --width 131 --height 67 \
      --block-shapes 32x8,16x16,1x64,64x4,256x1 --radii 1,4 --warmups 0 --runs 1 --search exhaustive
  done
} > sanitizer.txt 2>&1
# The example's test binary runs the example binaries where cargo built them: put them there.
mkdir -p $R/target/release && cp $B/*-example* $R/target/release/
for staged in blur shapes; do
  {
    stamp $staged; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
    REQUIRE_GPU=1 $R/.device/$staged/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
    echo "# exit status: ${PIPESTATUS[0]}"
  } > gpu-tests-$staged.txt 2>&1
done
tar czf "$OUT/blur.tgz" $(ls *.txt *.json 2>/dev/null)
tail -n 4 blur.txt sanitizer.txt gpu-tests-*.txt
