#!/usr/bin/env bash
# Where a one-configuration run's time outside the measurement goes (issue 29, part 3). Ready,
# not run (the call that carried it got no machine). ON THE DEVICE, from a folder that holds
# reduce-example and reduce.ptx (the Kernel Tuner carry has both: cp probe.sh exit-cost.py into
# .device-carry/kt after ../2026-12-03-h200-kernel-tuner/stage.sh):
#     bash probe.sh > $OUT/probe.txt 2>&1
# Whole processes timed with date +%s.%N: --help (start, clap, exit, no driver call), one
# configuration at the default 2^24 floats and at 1024 (the host data's share), with --stats (its
# Time: line), Python's own start against a context released or left to the exit
# (exit-cost.py), the dynamic loader's statistics, and where strace is on the device the 15
# longest gaps between system calls of one run.
cd "$(dirname "$0")" || exit 1; chmod +x reduce-example
t() { local s=$(date +%s.%N); "$@" > /dev/null 2>&1; local c=$?; awk -v a=$s -v b=$(date +%s.%N) -v c=$c -v cmd="$*" 'BEGIN{printf "%8.1f ms exit %d  %s\n", 1e3*(b-a), c, cmd}'; }
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "# tools: $(command -v strace ltrace perf gdb | tr '\n' ' ')"
for i in 1 2 3; do t ./reduce-example --help; done
for i in 1 2 3; do t ./reduce-example --block-sizes 256 --runs 1 --warmups 0; done
for i in 1 2 3; do t ./reduce-example --block-sizes 256 --runs 1 --warmups 0 --n 1024; done
for i in 1 2 3; do t ./reduce-example --block-sizes 256 --runs 1 --warmups 0 --stats; done
for i in 1 2 3; do t python3 -c pass; t python3 exit-cost.py release; t python3 exit-cost.py exit; done
./reduce-example --block-sizes 256 --runs 1 --warmups 0 --stats | tail -n 1
LD_DEBUG=statistics ./reduce-example --help 2>&1 >/dev/null | grep -i "total startup\|relocation" | head -4
if command -v strace >/dev/null; then
  strace -f -tt -o strace.txt ./reduce-example --block-sizes 256 --runs 1 --warmups 0 --stats > /dev/null 2>&1
  python3 - <<'PY'
import re
lines=open("strace.txt").read().splitlines()
def ts(l):
    h,m,s=l.split()[1].split(":"); return 3600*int(h)+60*int(m)+float(s)
t0=ts(lines[0]); prev=t0
print("strace lines", len(lines), "span %.1f ms" % (1e3*(ts(lines[-1])-t0)))
gaps=sorted(((ts(b)-ts(a), ts(a)-t0, a[:150], b[:150]) for a,b in zip(lines,lines[1:])), reverse=True)
for g,at,a,b in gaps[:15]:
    print("%7.1f ms at %7.1f ms: %s\n                        -> %s" % (1e3*g, 1e3*at, a, b))
PY
fi
