#!/usr/bin/env bash
# Run HERE (no GPU needed) before the next device call of issue 29: stages the Kernel Tuner
# carry (stage.sh), the CLI's and the example's GPU tests (../2026-12-02-h200-block-shapes/
# stage.sh, ../2026-12-02-h200-transpose/stage.sh) and the wall-time probe, all of one commit,
# and packs them into .device/pack/all.tar.xz: the three folders are about 70 MiB, over the
# device tool's 64 MiB carry, the archive about 21 MiB. Then the device call, carrying
# .device/pack, from the repository root:
#     bash evidence/2026-12-03-h200-kernel-tuner/on-device.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
bash "$here/stage.sh"
bash evidence/2026-12-02-h200-block-shapes/stage.sh
bash evidence/2026-12-02-h200-transpose/stage.sh
strip .device/shapes/target/release/deps/gpu-* .device/transpose/target/release/deps/gpu-*
cp evidence/2026-12-03-h200-wall-time/probe.sh evidence/2026-12-03-h200-wall-time/exit-cost.py .device-carry/kt/
rm -rf .device/pack && mkdir -p .device/pack
tar cJf .device/pack/all.tar.xz .device-carry/kt .device/shapes .device/transpose
cat .device-carry/kt/COMMIT .device/shapes/COMMIT .device/transpose/COMMIT
ls -la .device/pack
