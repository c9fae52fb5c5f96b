#!/usr/bin/env bash
# The closing call: part3.sh (the GPU tests of the staged commit, racecheck of the transpose at
# 256 x 256) and part4.sh (the fresh project's compare with --json at 2^24 and 2^26), on binaries
# of the commit this stop lands; gpu-bin/ holds tests.tar.xz and final.tar.xz.
set -u
bash evidence/2026-12-04-h200-convergent/part3.sh
bash evidence/2026-12-04-h200-convergent/part4.sh
