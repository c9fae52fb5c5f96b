#!/usr/bin/env python3
"""Per entry of a variant built by build-variant.sh: the barriers and backward branches of its
PTX, the barrier calls of the LLVM IR that rustc_codegen_nvvm handed to libNVVM, the IR's blocks
named `*.us` (the suffix LLVM 7's LoopUnswitch gives the blocks of the loop copy it makes), and
the attributes of the barrier's callee or call.

    facts.py PREFIX ENTRY...   (reads PREFIX.ptx.txt and PREFIX.ll)
"""
import re
import sys

prefix, entries = sys.argv[1], sys.argv[2:]
ptx = open(prefix + ".ptx.txt").read()
ir = open(prefix + ".ll").read()
for name in entries:
    body = ptx[ptx.index(".entry " + name + "("):]
    body = body[: body.index("\n}\n")]
    barriers = re.findall(r"^\s*(?:@!?%p\d+\s+)?((?:barrier|bar)\.sync)\b", body, re.M)
    seen, backward = set(), 0
    for line in body.split("\n"):
        label = re.match(r"^(\$L__BB\d+_\d+):", line)
        if label:
            seen.add(label.group(1))
        target = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);", line)
        if target and target.group(1) in seen:
            backward += 1
    function = ir[ir.index("@" + name + "("):]
    function = function[: function.index("\n}\n")]
    calls = re.findall(r"call void (@[\w.]*barrier[\w.]*|asm sideeffect \"barrier\.sync 0;\")", function)
    unswitched = re.findall(r"^[\w.]+\.us\d*:", function, re.M)
    print(
        f"{name}: PTX {len(barriers)} {'/'.join(sorted(set(barriers))) or 'barriers'}, "
        f"{backward} backward branches (loops); IR {len(calls)} barrier calls "
        f"({', '.join(sorted(set(calls)))}), {len(unswitched)} blocks named *.us"
    )
attributes = dict(re.findall(r"^attributes (#\d+) = \{ (.*) \}$", ir, re.M))
for callee in ["@llvm.nvvm.barrier.sync", "@__nvvm_block_barrier"]:
    declared = re.search(r"^declare void " + re.escape(callee) + r"\(.*$", ir, re.M)
    if declared:
        group = re.search(r"#\d+", declared.group(0))
        print(f"declare {callee}: {attributes.get(group.group(0), 'no attributes') if group else 'no attributes'}")
asm_call = re.search(r"call void asm sideeffect \"barrier\.sync 0;\", \"~\{memory\}\"\(\)\s*(#\d+)?", ir)
if asm_call:
    print(f"asm barrier call: {attributes.get(asm_call.group(1), 'no attributes')}")
