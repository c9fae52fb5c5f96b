/*!
What one entry's PTX says about its speed, read from the text alone: its instructions, block
barriers and loops, the conditional branches on the thread index that jump over a barrier (a
loop split on the thread index, each copy with barriers of its own: what rust-cuda's LLVM 7
loop unswitching made of a barrier it did not know to be convergent, `docs/barriers.md`), and
the width of the registers that address shared memory. `compare` prints them for each build of
a kernel and names, from them and the driver's registers and local memory, the likeliest cause
of a gap between two builds ([`likeliest_cause`]).

A register depends on the thread index when it is `%tid`, `%laneid` or `%warpid`, or when an
instruction writes it from one that does, through any chain (loads included: a value read at a
thread's own address is the thread's). The reading is flow-insensitive, as PTX's virtual
registers make sound enough: a register that some instruction writes from the thread index is
taken as the thread's everywhere.
*/

use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The facts of one entry's PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PtxFacts {
    /// PTX instructions in the entry (labels, directives and declarations not counted).
    pub instructions: u32,
    /// Block barrier instructions: `bar.sync`, `bar.red`, `bar.arrive`, `barrier.*` (not
    /// `bar.warp.sync`, a warp's own).
    pub barriers: u32,
    /// Loops: branches back to a label above them.
    pub loops: u32,
    /// Conditional branches on a predicate that depends on the thread index with a block
    /// barrier on one of their sides before the two sides meet again (at a block that
    /// post-dominates the branch): threads of one block then reach different copies of a
    /// barrier, which is what a loop split on the thread index looks like. None in a kernel
    /// whose compiler kept each barrier where every thread meets it.
    pub thread_branches_around_barriers: u32,
    /// The width in bits of the registers that address shared memory (`ld.shared [%rd7+4]`: 64,
    /// `[%r1+4]`: 32); the wider where both occur; `None` where no shared access goes through
    /// a register.
    pub shared_address_bits: Option<u32>,
}

impl PtxFacts {
    /// The facts of entry `entry` in `ptx`; `None` where `ptx` has no such entry.
    pub fn of(ptx: &str, entry: &str) -> Option<Self> {
        let body = entry_body(ptx, entry)?;
        let widths = register_widths(body);
        let lines: Vec<Line<'_>> = body.lines().filter_map(Line::parse).collect();
        let instructions: Vec<&Instruction<'_>> = lines
            .iter()
            .filter_map(|line| match line {
                Line::Instruction(instruction) => Some(instruction),
                Line::Label(_) => None,
            })
            .collect();
        let thread_dependent = thread_dependent_registers(&lines);
        let graph = Graph::of(&lines);
        let post_dominators = graph.post_dominators();
        let mut facts = Self {
            instructions: instructions.len() as u32,
            barriers: instructions.iter().filter(|instruction| instruction.is_block_barrier()).count() as u32,
            ..Self::default()
        };
        for instruction in &instructions {
            if let Some(bits) =
                instruction.shared_address_register().and_then(|register| width_of(register, &widths))
            {
                facts.shared_address_bits = facts.shared_address_bits.max(Some(bits));
            }
        }
        for (block, node) in graph.blocks.iter().enumerate() {
            facts.loops += node.successors.iter().filter(|&&successor| successor <= block).count() as u32;
            let on_thread =
                node.branch_guard.as_deref().is_some_and(|guard| thread_dependent.contains(guard));
            if on_thread && graph.barrier_before_reconvergence(block, &post_dominators[block]) {
                facts.thread_branches_around_barriers += 1;
            }
        }
        Some(facts)
    }

    /// Whether the PTX has a loop split on the thread index around its barriers.
    pub fn splits_on_thread_index(&self) -> bool {
        self.thread_branches_around_barriers > 0
    }
}

/// What the driver says of one build after its JIT, beside its PTX's facts: the inputs of
/// [`likeliest_cause`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildFacts<'a> {
    /// The build's label (`cuda_builder`, `nvcc`).
    pub label: &'a str,
    /// Its PTX's facts.
    pub ptx: PtxFacts,
    /// Registers per thread after the JIT.
    pub registers: u32,
    /// Local memory per thread after the JIT, in bytes (register spills and local arrays).
    pub local_bytes: u32,
    /// Its blocks per SM at the row in question.
    pub blocks_per_sm: u32,
}

/// The likeliest cause, in words, of `slow` taking longer than `fast` at one row: the first of
/// a loop split on the thread index around barriers, more local memory (spills), fewer blocks
/// per SM, more barriers, over a tenth more instructions, and wider shared-memory addresses that
/// holds of `slow` and not of `fast`; `None` where none does.
pub fn likeliest_cause(slow: &BuildFacts<'_>, fast: &BuildFacts<'_>) -> Option<String> {
    let (s, f) = (&slow.ptx, &fast.ptx);
    if s.splits_on_thread_index() && !f.splits_on_thread_index() {
        return Some(format!(
            "{}'s loop is split on the thread index around its barriers ({} {} on the thread index with a barrier on one side; {} \
             barriers against {}'s {}); {}'s is not",
            slow.label,
            s.thread_branches_around_barriers,
            plural(s.thread_branches_around_barriers, "branch", "branches"),
            s.barriers,
            fast.label,
            f.barriers,
            fast.label
        ));
    }
    if slow.local_bytes > fast.local_bytes {
        return Some(format!(
            "{} uses {} bytes of local memory a thread (spills), {} {}",
            slow.label, slow.local_bytes, fast.label, fast.local_bytes
        ));
    }
    if slow.blocks_per_sm < fast.blocks_per_sm {
        return Some(format!(
            "{} fits {} blocks per SM here against {}'s {} ({} registers a thread against {})",
            slow.label, slow.blocks_per_sm, fast.label, fast.blocks_per_sm, slow.registers, fast.registers
        ));
    }
    if s.barriers > f.barriers {
        return Some(format!(
            "{} has {} barriers against {}'s {}",
            slow.label, s.barriers, fast.label, f.barriers
        ));
    }
    if u64::from(s.instructions) * 10 > u64::from(f.instructions) * 11 {
        return Some(format!(
            "{}'s PTX has {} instructions against {}'s {}",
            slow.label, s.instructions, fast.label, f.instructions
        ));
    }
    if s.shared_address_bits > f.shared_address_bits && f.shared_address_bits.is_some() {
        return Some(format!(
            "{} addresses shared memory with {}-bit registers, {} with {}-bit",
            slow.label,
            s.shared_address_bits.unwrap_or_default(),
            fast.label,
            f.shared_address_bits.unwrap_or_default()
        ));
    }
    None
}

fn plural<'a>(count: u32, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 { one } else { many }
}

/// An entry's control flow: its basic blocks in text order, each with its successors.
struct Graph {
    blocks: Vec<Block>,
}

/// One basic block.
struct Block {
    /// The blocks it can go to next (a branch's target, then the next block where it falls
    /// through); none after `ret` or `exit`.
    successors: Vec<usize>,
    /// The predicate of its closing conditional branch, where it ends with one.
    branch_guard: Option<String>,
    /// Whether it holds a block barrier.
    has_barrier: bool,
}

impl Graph {
    fn of(lines: &[Line<'_>]) -> Self {
        // Blocks start at a label and after a branch, `ret` or `exit`.
        let mut starts = vec![0];
        for (at, line) in lines.iter().enumerate() {
            let ends = matches!(line, Line::Instruction(instruction) if instruction.ends_block());
            if (matches!(line, Line::Label(_)) && at > 0) || (ends && at + 1 < lines.len()) {
                starts.push(if ends { at + 1 } else { at });
            }
        }
        starts.sort_unstable();
        starts.dedup();
        let block_of_line = |at: usize| starts.partition_point(|&start| start <= at) - 1;
        let labels: HashMap<&str, usize> = lines
            .iter()
            .enumerate()
            .filter_map(|(at, line)| match line {
                Line::Label(name) => Some((*name, block_of_line(at))),
                Line::Instruction(_) => None,
            })
            .collect();
        let mut blocks = Vec::with_capacity(starts.len());
        for (index, &start) in starts.iter().enumerate() {
            let end = starts.get(index + 1).copied().unwrap_or(lines.len());
            let instructions = lines[start..end].iter().filter_map(|line| match line {
                Line::Instruction(instruction) => Some(instruction),
                Line::Label(_) => None,
            });
            let mut block = Block { successors: Vec::new(), branch_guard: None, has_barrier: false };
            let mut falls_through = true;
            for instruction in instructions {
                block.has_barrier |= instruction.is_block_barrier();
                if let Some(target) = instruction.branch_target() {
                    block.successors.extend(labels.get(target));
                    falls_through = instruction.guard.is_some();
                    block.branch_guard = instruction.guard.map(String::from);
                } else if instruction.ends_block() {
                    falls_through = instruction.guard.is_some();
                }
            }
            if falls_through && index + 1 < starts.len() {
                block.successors.push(index + 1);
            }
            blocks.push(block);
        }
        Self { blocks }
    }

    /// Whether a barrier lies on some path from `block`'s successors before the paths meet
    /// again at a block that post-dominates `block`: the threads that took one side of its
    /// branch and those that took the other then reach different barriers (or one side none).
    /// `joins` is `block`'s row of [`Graph::post_dominators`].
    fn barrier_before_reconvergence(&self, block: usize, joins: &[bool]) -> bool {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack: Vec<usize> = self.blocks[block].successors.clone();
        while let Some(next) = stack.pop() {
            if next == block || joins[next] || std::mem::replace(&mut seen[next], true) {
                continue;
            }
            if self.blocks[next].has_barrier {
                return true;
            }
            stack.extend(&self.blocks[next].successors);
        }
        false
    }

    /// For each block, which blocks post-dominate it (every path from it to the entry's end goes
    /// through them), itself included.
    fn post_dominators(&self) -> Vec<Vec<bool>> {
        let count = self.blocks.len();
        let mut sets: Vec<Vec<bool>> = self
            .blocks
            .iter()
            .enumerate()
            .map(|(index, block)| {
                if block.successors.is_empty() {
                    (0..count).map(|other| other == index).collect()
                } else {
                    vec![true; count]
                }
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for index in (0..count).rev() {
                let successors = &self.blocks[index].successors;
                if successors.is_empty() {
                    continue;
                }
                let mut set: Vec<bool> = (0..count)
                    .map(|other| successors.iter().all(|&successor| sets[successor][other]))
                    .collect();
                set[index] = true;
                if set != sets[index] {
                    sets[index] = set;
                    changed = true;
                }
            }
        }
        sets
    }
}

/// The text of entry `entry`, from its `.entry` line to its closing brace.
fn entry_body<'a>(ptx: &'a str, entry: &str) -> Option<&'a str> {
    let head = format!(".entry {entry}(");
    let start = ptx.find(&head)?;
    let rest = &ptx[start..];
    let open = rest.find("\n{")?;
    let end = rest[open..].find("\n}").map_or(rest.len(), |close| open + close);
    Some(&rest[open..end])
}

/// The width of each register prefix the entry declares (`.reg .b64 %rd<12>;`: `rd` is 64).
fn register_widths(body: &str) -> HashMap<&str, u32> {
    let mut widths = HashMap::new();
    for line in body.lines() {
        let Some(declaration) = line.trim().strip_prefix(".reg") else { continue };
        let mut words = declaration.split_whitespace();
        let (Some(ty), Some(name)) = (words.next(), words.next()) else { continue };
        let bits =
            ty.trim_start_matches('.').trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().ok();
        let prefix = name.trim_start_matches('%').split(['<', ';']).next().unwrap_or("");
        if let Some(bits) = bits {
            widths.insert(prefix, bits);
        }
    }
    widths
}

/// The width of `register` (`%rd7`) from its prefix's declaration.
fn width_of(register: &str, widths: &HashMap<&str, u32>) -> Option<u32> {
    let prefix = register.trim_start_matches('%').trim_end_matches(|c: char| c.is_ascii_digit());
    widths.get(prefix).copied()
}

/// One line of an entry's body that matters here.
enum Line<'a> {
    Label(&'a str),
    Instruction(Instruction<'a>),
}

/// One instruction: its guard predicate, opcode and operands.
struct Instruction<'a> {
    guard: Option<&'a str>,
    opcode: &'a str,
    operands: Vec<&'a str>,
}

impl<'a> Line<'a> {
    fn parse(line: &'a str) -> Option<Self> {
        let code = line.split("//").next().unwrap_or("").trim();
        if let Some(label) = code.strip_suffix(':') {
            return Some(Line::Label(label.trim()));
        }
        let code = code.strip_suffix(';')?.trim();
        if code.starts_with('.') || code.starts_with('{') || code.starts_with('}') || code.is_empty() {
            return None;
        }
        let (guard, code) = match code.strip_prefix('@') {
            Some(guarded) => {
                let (predicate, rest) = guarded.split_once(char::is_whitespace)?;
                (Some(predicate.trim_start_matches('!')), rest.trim())
            }
            None => (None, code),
        };
        let (opcode, rest) = code.split_once(char::is_whitespace).unwrap_or((code, ""));
        let operands = rest.split(',').map(str::trim).filter(|operand| !operand.is_empty()).collect();
        Some(Line::Instruction(Instruction { guard, opcode, operands }))
    }
}

impl<'a> Instruction<'a> {
    fn is_block_barrier(&self) -> bool {
        (self.opcode.starts_with("bar.") && !self.opcode.starts_with("bar.warp"))
            || self.opcode.starts_with("barrier.")
    }

    /// Whether it ends its basic block: a branch, `ret` or `exit`.
    fn ends_block(&self) -> bool {
        self.branch_target().is_some()
            || matches!(self.opcode, "ret" | "exit")
            || self.opcode.starts_with("ret.")
    }

    fn branch_target(&self) -> Option<&'a str> {
        (self.opcode == "bra" || self.opcode.starts_with("bra."))
            .then(|| self.operands.first().copied())
            .flatten()
    }

    /// Whether the first operand is written rather than read.
    fn writes_first_operand(&self) -> bool {
        let family = self.opcode.split('.').next().unwrap_or("");
        !matches!(
            family,
            "st" | "red"
                | "bar"
                | "barrier"
                | "bra"
                | "ret"
                | "exit"
                | "membar"
                | "fence"
                | "prefetch"
                | "call"
                | "trap"
        )
    }

    /// The register of a shared-memory access's address (`[%rd7+4]`), where it has one.
    fn shared_address_register(&self) -> Option<&'a str> {
        if !self.opcode.split('.').any(|part| part == "shared") {
            return None;
        }
        let address = self.operands.iter().find(|operand| operand.starts_with('['))?;
        let inner = address.trim_start_matches('[').trim_end_matches(']');
        let register = inner.split(['+', '-']).next()?.trim();
        register.starts_with('%').then_some(register)
    }
}

/// The registers named in `operand` (`%r1`, `{%f1, %f2}`, `[%rd3+4]`, `%tid.x`).
fn registers(operand: &str) -> impl Iterator<Item = &str> {
    operand
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '%' || c == '.' || c == '_'))
        .filter(|word| word.starts_with('%'))
}

/// Whether `register` is one of the thread's own special registers.
fn is_thread_index(register: &str) -> bool {
    register.starts_with("%tid") || register == "%laneid" || register == "%warpid"
}

/// Every register some instruction writes from the thread index, directly or through others.
fn thread_dependent_registers<'a>(lines: &[Line<'a>]) -> HashSet<&'a str> {
    let mut dependent: HashSet<&'a str> = HashSet::new();
    loop {
        let before = dependent.len();
        for line in lines {
            let Line::Instruction(instruction) = line else { continue };
            if !instruction.writes_first_operand() || instruction.operands.is_empty() {
                continue;
            }
            // setp writes `%p1|%p2`, a vector `{%f1, %f2}` spans operands: the written ones are
            // those of the first operand up to its closing brace.
            let mut written = Vec::new();
            let mut read = Vec::new();
            let mut in_first = true;
            for operand in &instruction.operands {
                if in_first {
                    written.extend(registers(operand));
                    in_first = operand.starts_with('{') && !operand.ends_with('}');
                } else {
                    read.extend(registers(operand));
                }
            }
            if instruction.guard.is_some_and(|guard| dependent.contains(guard))
                || read.iter().any(|register| is_thread_index(register) || dependent.contains(register))
            {
                dependent.extend(written);
            }
        }
        if dependent.len() == before {
            return dependent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPLIT: &str = include_str!("../tests/ptx_facts/stencil3-split.ptx.txt");
    const WHOLE: &str = include_str!("../tests/ptx_facts/stencil3-whole.ptx.txt");
    const NVCC: &str = include_str!("../tests/ptx_facts/stencil3-nvcc.ptx.txt");

    fn build(label: &str, ptx: PtxFacts) -> BuildFacts<'_> {
        BuildFacts { label, ptx, registers: 20, local_bytes: 0, blocks_per_sm: 8 }
    }

    #[test]
    fn the_split_scaffold_loop_is_found_and_nvccs_is_not() {
        let split = PtxFacts::of(SPLIT, "stencil3").unwrap();
        assert_eq!(split.barriers, 5);
        assert_eq!(split.loops, 2);
        assert!(split.splits_on_thread_index(), "{split:?}");
        assert_eq!(split.shared_address_bits, Some(64));
        let nvcc = PtxFacts::of(NVCC, "stencil3").unwrap();
        assert_eq!((nvcc.barriers, nvcc.loops, nvcc.thread_branches_around_barriers), (2, 1, 0), "{nvcc:?}");
        assert_eq!(nvcc.shared_address_bits, Some(32));
        let cause = likeliest_cause(&build("cuda_builder", split), &build("nvcc", nvcc)).unwrap();
        assert!(
            cause.starts_with("cuda_builder's loop is split on the thread index around its barriers ("),
            "{cause}"
        );
        assert!(cause.contains("5 barriers against nvcc's 2); nvcc's is not"), "{cause}");
    }

    #[test]
    fn the_fixed_scaffold_loop_is_whole() {
        let whole = PtxFacts::of(WHOLE, "stencil3").unwrap();
        assert_eq!(
            (whole.barriers, whole.loops, whole.thread_branches_around_barriers),
            (2, 1, 0),
            "{whole:?}"
        );
        let nvcc = PtxFacts::of(NVCC, "stencil3").unwrap();
        // Equal facts and the same occupancy: no cause to name.
        let cause = likeliest_cause(
            &build("cuda_builder", whole),
            &build(
                "nvcc",
                PtxFacts {
                    shared_address_bits: whole.shared_address_bits,
                    instructions: whole.instructions,
                    ..nvcc
                },
            ),
        );
        assert_eq!(cause, None);
    }

    #[test]
    fn the_committed_scaffold_and_its_twin_keep_their_loops_whole() {
        for ptx in [
            include_str!("../../../cli/templates/new/ptx/kernels.ptx"),
            include_str!("../../../cli/templates/new/ptx/stencil3-nvcc.ptx"),
        ] {
            let facts = PtxFacts::of(ptx, "stencil3").unwrap();
            assert_eq!(
                (facts.barriers, facts.loops, facts.thread_branches_around_barriers),
                (2, 1, 0),
                "{facts:?}"
            );
        }
    }

    #[test]
    fn a_thread_branch_that_skips_no_barrier_is_not_a_split() {
        let ptx = "\
.visible .entry k(
\t.param .u64 k_param_0
)
{
\t.reg .pred \t%p<3>;
\t.reg .b32 \t%r<4>;
\tmov.u32 \t%r1, %tid.x;
$L__BB0_1:
\tsetp.ne.s32 \t%p1, %r1, 0;
\t@%p1 bra \t$L__BB0_3;
\tst.shared.u32 \t[%r1], %r1;
$L__BB0_3:
\tbarrier.sync 0;
\tadd.s32 \t%r2, %r2, 1;
\tsetp.lt.u32 \t%p2, %r2, 8;
\t@%p2 bra \t$L__BB0_1;
\tret;
}
";
        let facts = PtxFacts::of(ptx, "k").unwrap();
        assert_eq!(
            facts,
            PtxFacts {
                instructions: 9,
                barriers: 1,
                loops: 1,
                thread_branches_around_barriers: 0,
                shared_address_bits: Some(32)
            }
        );
        // The same branch jumping over the barrier: a split.
        let split = ptx.replace("$L__BB0_3:\n\tbarrier.sync 0;", "\tbarrier.sync 0;\n$L__BB0_3:");
        assert_eq!(PtxFacts::of(&split, "k").unwrap().thread_branches_around_barriers, 1);
        // A branch around the barrier on a block-uniform value is not on the thread index.
        let uniform = split.replace("%tid.x", "%ctaid.x");
        assert_eq!(PtxFacts::of(&uniform, "k").unwrap().thread_branches_around_barriers, 0);
        assert_eq!(PtxFacts::of(ptx, "missing"), None);
    }

    #[test]
    fn causes_come_in_order() {
        let plain = PtxFacts { instructions: 100, barriers: 2, loops: 1, ..PtxFacts::default() };
        let fast = build("nvcc", plain);
        let spilled = BuildFacts { local_bytes: 16, ..build("cuda_builder", plain) };
        assert_eq!(
            likeliest_cause(&spilled, &fast).unwrap(),
            "cuda_builder uses 16 bytes of local memory a thread (spills), nvcc 0"
        );
        let crowded = BuildFacts { blocks_per_sm: 4, registers: 64, ..build("cuda_builder", plain) };
        assert_eq!(
            likeliest_cause(&crowded, &fast).unwrap(),
            "cuda_builder fits 4 blocks per SM here against nvcc's 8 (64 registers a thread against 20)"
        );
        let longer = build("cuda_builder", PtxFacts { instructions: 111, ..plain });
        assert_eq!(
            likeliest_cause(&longer, &fast).unwrap(),
            "cuda_builder's PTX has 111 instructions against nvcc's 100"
        );
        let barely = build("cuda_builder", PtxFacts { instructions: 110, ..plain });
        assert_eq!(likeliest_cause(&barely, &fast), None);
        let wide = build("cuda_builder", PtxFacts { shared_address_bits: Some(64), ..plain });
        let narrow = build("nvcc", PtxFacts { shared_address_bits: Some(32), ..plain });
        assert_eq!(
            likeliest_cause(&wide, &narrow).unwrap(),
            "cuda_builder addresses shared memory with 64-bit registers, nvcc with 32-bit"
        );
    }
}
