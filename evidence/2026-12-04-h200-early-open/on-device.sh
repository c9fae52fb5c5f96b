#!/usr/bin/env bash
# ON THE DEVICE, from the repository root, carrying .device/pack (stage.sh fills it), $OUT set:
# the Kernel Tuner side by side, the probe and both GPU test suites of HEAD
# (../2026-12-03-h200-kernel-tuner/on-device.sh, about 300 s), then ab.sh, before against after
# open_early (about 40 s). Back: what that script returns, and ab.txt.
set -u
: "${OUT:?set OUT to the output folder}"
bash evidence/2026-12-03-h200-kernel-tuner/on-device.sh
(cd .device-carry/kt && timeout 120 bash ab.sh > "$OUT/ab.txt" 2>&1; echo "ab.sh: exit $?")
tail -n 50 "$OUT/ab.txt"
