#!/usr/bin/env python3
"""Reads seed-against-rust.txt (call.sh's) and prints, per round, each block size's GB/s of
block-size (graph timing, the default) and of block-size --timing batch over the seed's
(block_size.cu), and the largest difference from 1 of each. Usage: compare.py FILE"""
import re, sys

def tables(text):
    """Each section's rows: {thr/blk: GB/s}, in the file's order, with the section's title."""
    sections = re.split(r"^################ ", text, flags=re.M)[1:]
    out = []
    for section in sections:
        title = section.splitlines()[0]
        rows, header = {}, None
        for line in section.splitlines():
            words = line.split()
            if words[:1] == ["thr/blk"]:
                header = words
                continue
            if header and not words:
                break  # the table ends at its first blank line
            if header:
                rows[int(words[0])] = float(words[header.index("GB/s")])
        out.append((title, rows))
    return out

def main(path):
    sections = tables(open(path).read())
    for i in range(0, len(sections), 3):
        (t_seed, seed), (t_rust, rust), (t_batch, batch) = sections[i:i + 3]
        print(f"{t_seed.split(':')[0]}")
        for name, rows in (("default (graph)", rust), ("--timing batch", batch)):
            ratios = {block: rows[block] / seed[block] for block in seed if block in rows}
            worst = max(ratios.values(), key=lambda r: abs(r - 1))
            print(f"  {name:16} over the seed, by GB/s: " + " ".join(f"{b}:{r:.3f}" for b, r in ratios.items()))
            print(f"  {'':16} {len(ratios)} rows, farthest from 1: {worst:.3f}; within 2 percent: "
                  f"{sum(abs(r - 1) <= 0.02 for r in ratios.values())} of {len(ratios)}")

if __name__ == "__main__":
    main(sys.argv[1])
