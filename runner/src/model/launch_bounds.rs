/*!
What a kernel's PTX demands of its block: `.reqntid X[, Y[, Z]]` (exactly that block) and
`.maxntid X[, Y[, Z]]` (at most that many threads), which a launch with any other block fails
with "invalid argument". The driver folds both, with the kernel's registers, into the function's
`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`; the runner reads that, and the PTX only to name the
directive and to know an exact `.reqntid` shape. A block size they forbid is pruned, its row
naming the directive.
*/

use crate::model::block_shape::BlockShape;

/// The launch bounds of one kernel: the driver's most threads a block for it, and the PTX's
/// directives where it has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchBounds {
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` of the loaded function.
    pub kernel_max: u32,
    /// The device's most threads a block.
    pub device_max: u32,
    /// `.reqntid`: the block's x, y and z (1 where not given).
    pub required: Option<[u32; 3]>,
    /// `.maxntid`: x, y and z (1 where not given).
    pub max: Option<[u32; 3]>,
}

impl LaunchBounds {
    /// The bounds of `entry` in `ptx`, with the driver's `kernel_max` and the device's
    /// `device_max`.
    pub fn of(ptx: &str, entry: &str, kernel_max: u32, device_max: u32) -> Self {
        let directives = directives(ptx, entry).unwrap_or_default();
        Self {
            kernel_max,
            device_max,
            required: dims(&directives, ".reqntid"),
            max: dims(&directives, ".maxntid"),
        }
    }

    /// Why a block of `block` cannot be launched, where it cannot: not the `.reqntid` block
    /// (its shape, not only its threads), above the `.maxntid`, or above the driver's maximum
    /// for the kernel.
    pub fn refuses(&self, block: BlockShape) -> Option<String> {
        let threads_per_block = block.threads();
        if let Some(required) = self.required {
            let [x, y, z] = required;
            if [y, z] != [1, 1] && block != (BlockShape { x, y, z }) {
                return Some(format!(
                    "the PTX's `.reqntid {x}, {y}, {z}` requires a {x}x{y}x{z} block (--block-shapes {x}x{y}x{z})"
                ));
            }
            if [y, z] == [1, 1] && block != BlockShape::linear(x) {
                return Some(format!("the PTX's `.reqntid {x}` requires exactly {x} threads per block"));
            }
        }
        if threads_per_block <= self.kernel_max {
            return None;
        }
        Some(match self.max {
            Some([x, y, z]) => format!(
                "{threads_per_block} threads per block, above the PTX's `.maxntid {}` ({} threads)",
                said([x, y, z]),
                x * y * z
            ),
            None => format!(
                "{threads_per_block} threads per block, above the {} the driver allows this kernel \
                 (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)",
                self.kernel_max
            ),
        })
    }

    /// What the driver's folding of the directives gives (the mock's emulation of it): the
    /// device's maximum, lowered to the `.maxntid` and `.reqntid` products.
    #[cfg(any(test, feature = "mock"))]
    pub fn driver_max(ptx: &str, entry: &str, device_max: u32) -> u32 {
        let directives = directives(ptx, entry).unwrap_or_default();
        [dims(&directives, ".maxntid"), dims(&directives, ".reqntid")]
            .into_iter()
            .flatten()
            .map(|[x, y, z]| x.saturating_mul(y).saturating_mul(z))
            .fold(device_max, u32::min)
    }
}

/// `[x, y, z]` as the PTX wrote it: `128`, or `32, 8, 1`.
fn said([x, y, z]: [u32; 3]) -> String {
    match (y, z) {
        (1, 1) => x.to_string(),
        _ => format!("{x}, {y}, {z}"),
    }
}

/// The text between `entry`'s parameter list and its body: where its performance directives
/// are.
fn directives(ptx: &str, entry: &str) -> Option<String> {
    let head = format!(".entry {entry}(");
    let start = ptx.find(&head)? + head.len();
    let close = start + ptx[start..].find(')')? + 1;
    let body = close + ptx[close..].find('{')?;
    Some(ptx[close..body].to_string())
}

/// The values of `directive` (`.reqntid 32, 8` gives `[32, 8, 1]`); `None` where it is absent
/// or malformed.
fn dims(directives: &str, directive: &str) -> Option<[u32; 3]> {
    let at = directives.find(directive)? + directive.len();
    let line = directives[at..].lines().next()?;
    let values: Vec<u32> = line
        .split(',')
        .map(|value| value.trim().trim_end_matches(';').parse().ok())
        .collect::<Option<_>>()?;
    match values[..] {
        [x] => Some([x, 1, 1]),
        [x, y] => Some([x, y, 1]),
        [x, y, z] => Some([x, y, z]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".visible .entry a(\n\t.param .u64 a_0\n)\n.reqntid 128, 1, 1\n{\n\tret;\n}\n\
        .visible .entry b(\n\t.param .u64 b_0\n)\n.maxntid 256\n.minnctapersm 2\n{\n\tret;\n}\n\
        .visible .entry c(\n\t.param .u64 c_0\n)\n.reqntid 32, 8\n{\n\tret;\n}\n\
        .visible .entry d(\n\t.param .u64 d_0\n)\n{\n\tret;\n}\n";

    #[test]
    fn the_directives_of_each_entry_are_read_and_obeyed() {
        let a = LaunchBounds::of(PTX, "a", LaunchBounds::driver_max(PTX, "a", 1024), 1024);
        assert_eq!((a.required, a.max, a.kernel_max), (Some([128, 1, 1]), None, 128));
        let linear = BlockShape::linear;
        assert_eq!(a.refuses(linear(128)), None);
        assert_eq!(
            a.refuses(BlockShape { x: 64, y: 2, z: 1 }).unwrap(),
            "the PTX's `.reqntid 128` requires exactly 128 threads per block",
            "128 threads, but not in x alone"
        );
        assert_eq!(
            a.refuses(linear(64)).unwrap(),
            "the PTX's `.reqntid 128` requires exactly 128 threads per block"
        );
        let b = LaunchBounds::of(PTX, "b", LaunchBounds::driver_max(PTX, "b", 1024), 1024);
        assert_eq!((b.required, b.max, b.kernel_max), (None, Some([256, 1, 1]), 256));
        assert_eq!((b.refuses(linear(96)), b.refuses(linear(256))), (None, None));
        assert_eq!(b.refuses(BlockShape { x: 32, y: 8, z: 1 }), None, ".maxntid bounds the threads");
        assert_eq!(
            b.refuses(linear(512)).unwrap(),
            "512 threads per block, above the PTX's `.maxntid 256` (256 threads)"
        );
        let c = LaunchBounds::of(PTX, "c", LaunchBounds::driver_max(PTX, "c", 1024), 1024);
        assert_eq!(c.kernel_max, 256);
        assert_eq!(
            c.refuses(linear(256)).unwrap(),
            "the PTX's `.reqntid 32, 8, 1` requires a 32x8x1 block (--block-shapes 32x8x1)"
        );
        assert!(c.refuses(BlockShape { x: 16, y: 16, z: 1 }).is_some());
        assert_eq!(c.refuses(BlockShape { x: 32, y: 8, z: 1 }), None, "the one shape it requires");
        // No directive: the driver's maximum alone (registers can lower it).
        let d = LaunchBounds::of(PTX, "d", 512, 1024);
        assert_eq!((d.required, d.max), (None, None));
        assert_eq!(d.refuses(linear(512)), None);
        assert!(d.refuses(linear(1024)).unwrap().contains("above the 512 the driver allows this kernel"));
        assert_eq!(LaunchBounds::driver_max(PTX, "d", 1024), 1024);
        assert_eq!(LaunchBounds::driver_max(PTX, "nowhere", 1024), 1024);
    }
}
