#!/usr/bin/env bash
# Issue 24 on the H200: block shapes. The 2-D grayscale kernel (grayscale_2d: rows and columns,
# 2-D blocks over a 2-D grid) swept over its default shapes (2d of the default block sizes)
# beside the 1-D grid-stride kernel, at 4K (3840 x 2160) and at 66 M pixels (11520 x 5760),
# one wave and one thread per pixel; Rust against CUDA C++ (compare) over a set of shapes at
# both sizes; a user's kernel whose PTX demands its block (bounds-example) swept over the
# default block sizes; and the GPU tests (memcheck of the 2-D kernels among them). Binaries
# staged by stage.sh. Steps: all by default, or those named (bash run.sh 2 4). Everything ends
# in one archive, $OUT/shapes.tgz (the device hands back at most eight files).
set -u
steps=" ${*:-1 2 3 4} "
step() { [[ $steps == *" $1 "* ]]; }
D=.device/shapes
W=/tmp/shapes && rm -rf $W && mkdir -p $W && cd $W || exit 1
R=$OLDPWD
B=$R/$D/target/release; D=$R/$D
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $D/COMMIT) ($(cat $D/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$B/$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
# 1. The sweeps: 1-D against 2-D at each size, one wave and per item, one after the other.
step 1 && {
  stamp
  for size in "3840 2160" "11520 5760"; do
    set -- $size
    tag=$1x$2
    run block-size --provenance --width $1 --height $2 --json 1d-$tag.json
    run block-size --provenance --kernel grayscale_2d --width $1 --height $2 --json 2d-$tag.json
    run block-size --provenance --grid per-item --width $1 --height $2 --json 1d-per-item-$tag.json
    run block-size --provenance --kernel grayscale_2d --grid per-item --width $1 --height $2 --json 2d-per-item-$tag.json
  done
} > sweeps.txt 2>&1
# 2. Rust against CUDA C++, the 2-D kernel over shapes (and the 1-D kernel over the same counts).
step 2 && {
  stamp
  for size in "3840 2160" "11520 5760"; do
    set -- $size
    run block-size compare --provenance --kernel grayscale_2d --width $1 --height $2 \
      --block-shapes 256,128x2,64x4,32x8,16x16,512,64x8,32x16,1024,32x32
    run block-size compare --provenance --width $1 --height $2 --block-sizes 256,512,1024
  done
} > compare.txt 2>&1
# 3. A PTX that demands its block: .maxntid 256 and .reqntid 128, the default block sizes.
step 3 && {
  stamp
  run bounds-example --entry double_at_most_256 --json bounds-256.json
  run bounds-example --entry double_exactly_128 --json bounds-128.json
} > bounds.txt 2>&1
# 4. The GPU tests (their memcheck runs included).
step 4 && {
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests.txt 2>&1
tar czf "$OUT/shapes.tgz" $(ls *.txt *.json 2>/dev/null)
ls -la "$OUT"
