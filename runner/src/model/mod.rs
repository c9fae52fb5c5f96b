/*!
The model layer: what is known of a run without a GPU, and without cust. The occupancy
arithmetic ([`occupancy`]) and the SM model of each architecture with its presets ([`sm`]), the
pruning of configurations no device of the kind can launch ([`prune`]), grid policies
([`grid`]), run statistics ([`stats`]), frame sizes and units ([`frame_size`]), and what makes a row
the winner ([`objective`]), which search a sweep takes ([`search`]), how a row's output is compared element by element
([`comparison`]), the split of a sweep into shards ([`shard`]), and what an entry's PTX
says of its speed, with the likeliest cause of a gap between two builds ([`ptx_facts`]), and
what a row's hardware counters say bound it ([`counters`]).
*/

pub mod axis_values;
pub mod block_shape;
pub mod comparison;
pub mod counters;
pub mod frame_size;
pub mod grid;
pub mod launch_bounds;
pub mod limits;
pub mod mismatch;
pub mod objective;
pub mod occupancy;
pub mod pass;
pub mod prune;
pub mod ptx_facts;
pub mod search;
pub mod shard;
pub mod sm;
pub mod stats;
