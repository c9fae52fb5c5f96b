/*!
A kernel whose PTX demands its block, as PTX from another compiler (a Triton-style SDK) often
does: its PTX, written by hand, holds `out[i] = 2 x[i]` twice, one entry under
`.reqntid 128, 1, 1` (exactly 128 threads a block) and one under `.maxntid 256, 1, 1` (at most
256). A launch with another block fails with "invalid argument"; the sweep prunes those block
sizes instead, each row naming the directive, and measures and checks the rest.

# Thread Mapping
One thread an item (`--grid per-item`): item `blockIdx.x * blockDim.x + threadIdx.x`, the
threads past `n` idle.
*/

use block_size_runner::{Arg, Check, EmbeddedPtx, Kernel};

/// The PTX, written by hand (`ptxas` 11.8 for sm_75 and 13.0 for sm_90 assemble it).
const PTX: &str = r".version 7.8
.target sm_75
.address_size 64

// out[i] = 2 x[i] for i < n: one thread an item (--grid per-item), exactly 128 threads a block.
.visible .entry double_exactly_128(
	.param .u64 double_exactly_128_x,
	.param .u64 double_exactly_128_n,
	.param .u64 double_exactly_128_out
)
.reqntid 128, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [double_exactly_128_x];
	ld.param.u64 	%rd2, [double_exactly_128_n];
	ld.param.u64 	%rd3, [double_exactly_128_out];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	cvt.u64.u32 	%rd4, %r4;
	setp.ge.u64 	%p1, %rd4, %rd2;
	@%p1 bra 	$L__done;
	cvta.to.global.u64 	%rd5, %rd1;
	cvta.to.global.u64 	%rd6, %rd3;
	shl.b64 	%rd7, %rd4, 2;
	add.s64 	%rd8, %rd5, %rd7;
	ld.global.f32 	%f1, [%rd8];
	add.f32 	%f2, %f1, %f1;
	add.s64 	%rd9, %rd6, %rd7;
	st.global.f32 	[%rd9], %f2;
$L__done:
	ret;
}
// out[i] = 2 x[i] for i < n: one thread an item (--grid per-item), at most 256 threads a block.
.visible .entry double_at_most_256(
	.param .u64 double_at_most_256_x,
	.param .u64 double_at_most_256_n,
	.param .u64 double_at_most_256_out
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [double_at_most_256_x];
	ld.param.u64 	%rd2, [double_at_most_256_n];
	ld.param.u64 	%rd3, [double_at_most_256_out];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	cvt.u64.u32 	%rd4, %r4;
	setp.ge.u64 	%p1, %rd4, %rd2;
	@%p1 bra 	$L__done;
	cvta.to.global.u64 	%rd5, %rd1;
	cvta.to.global.u64 	%rd6, %rd3;
	shl.b64 	%rd7, %rd4, 2;
	add.s64 	%rd8, %rd5, %rd7;
	ld.global.f32 	%f1, [%rd8];
	add.f32 	%f2, %f1, %f1;
	add.s64 	%rd9, %rd6, %rd7;
	st.global.f32 	[%rd9], %f2;
$L__done:
	ret;
}
";

/// The module: both entries and their directives.
pub const MODULE: EmbeddedPtx = EmbeddedPtx::user("bounds", PTX);

/// The entry under `.reqntid 128, 1, 1`.
pub const EXACTLY_128: &str = "double_exactly_128";
/// The entry under `.maxntid 256, 1, 1`.
pub const AT_MOST_256: &str = "double_at_most_256";

/// `out = 2 x` over `n` values `i / 8` at `entry`, one thread an item, checked against the CPU.
///
/// # Parameters
/// `x` (the input, `n` f32), `n` (u64), `out` (`n` f32).
pub fn kernel(entry: &'static str, n: usize) -> Kernel {
    let x: Vec<f32> = (0..n).map(|i| (i % 4096) as f32 / 8.0).collect();
    Kernel::new(MODULE, entry)
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .input("x", x)
        .output::<f32>("out", n)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("out")])
        .check(Check::reference(move |result, _| {
            let Some(out) = result.of::<f32>() else { return Err("the output is not f32".into()) };
            match (0..n).find(|&i| out[i] != 2.0 * ((i % 4096) as f32 / 8.0)) {
                Some(i) => {
                    Err(format!("value {i} is {}, the CPU says {}", out[i], 2.0 * ((i % 4096) as f32 / 8.0)))
                }
                None => Ok(()),
            }
        }))
}

/// The grid these kernels need, as `--grid` takes it: one thread an item.
pub const GRID: &str = "per-item";
