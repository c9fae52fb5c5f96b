/*!
What a row's hardware counters say (`--counters`): the readings themselves ([`Counters`]), the
device-to-device copy they are measured against ([`CountersRun`]), and what bound the row
([`Bound`]), the summary's sentence. No GPU here: the readings come from
`crate::measure::profiler`, or from a file read back.
*/

use crate::model::sm::Limiter;
use serde::{Deserialize, Serialize};

/// One row's counters, read on a replay of its launch outside the timed samples. Each is
/// `None` where the profiler did not report it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Counters {
    /// Bytes read from and written to DRAM per second of the kernel (`dram__bytes.sum.per_second`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_bytes_per_second: Option<f64>,
    /// Achieved occupancy: active warps over the SM's maximum, in percent
    /// (`sm__warps_active.avg.pct_of_peak_sustained_active`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved_occupancy_percent: Option<f64>,
    /// Warp execution efficiency: threads active per executed instruction over 32, in percent
    /// (`smsp__thread_inst_executed_per_inst_executed.ratio`); below 100 where lanes idle or
    /// diverge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_efficiency_percent: Option<f64>,
    /// Branch efficiency: branches whose targets were uniform across the warp, in percent
    /// (`smsp__sass_average_branch_targets_threads_uniform.pct`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_efficiency_percent: Option<f64>,
    /// L2 hit rate, in percent (`lts__t_sector_hit_rate.pct`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_hit_percent: Option<f64>,
    /// Shared-memory bank conflicts, loads and stores
    /// (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` plus `_op_st.sum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bank_conflicts: Option<f64>,
    /// Warps stalled at a barrier, on average, in each cycle that issued an instruction
    /// (`smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barrier_stalls_per_issue: Option<f64>,
    /// Warps stalled waiting on memory (the long scoreboard), on average, in each cycle that
    /// issued an instruction (`smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_stalls_per_issue: Option<f64>,
}

/// One Nsight Compute metric the counters are read from, and the counter its value fills.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Metric {
    /// Its name, as `ncu --metrics` takes it and its CSV heads its column.
    pub name: &'static str,
    /// Puts its value (in ncu's base units) into the counter it fills.
    pub fill: fn(&mut Counters, f64),
}

/// The metrics read, each with the counter it fills: declared here beside the fields, so that a
/// counter is its field and its metric in this file, and its column in the table's
/// `COUNTER_COLUMNS` (which the table, CSV, Markdown, HTML, T4 and JSON follow).
pub(crate) const METRICS: [Metric; 9] = [
    Metric {
        name: "dram__bytes.sum.per_second",
        fill: |counters, value| counters.dram_bytes_per_second = Some(value),
    },
    Metric {
        name: "sm__warps_active.avg.pct_of_peak_sustained_active",
        fill: |counters, value| counters.achieved_occupancy_percent = Some(value),
    },
    // Threads per executed instruction: over 32, the warp execution efficiency.
    Metric {
        name: "smsp__thread_inst_executed_per_inst_executed.ratio",
        fill: |counters, value| counters.warp_efficiency_percent = Some(value / 32.0 * 100.0),
    },
    Metric {
        name: "smsp__sass_average_branch_targets_threads_uniform.pct",
        fill: |counters, value| counters.branch_efficiency_percent = Some(value),
    },
    Metric {
        name: "lts__t_sector_hit_rate.pct",
        fill: |counters, value| counters.l2_hit_percent = Some(value),
    },
    // Bank conflicts: loads and stores summed into one counter.
    Metric { name: "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", fill: add_bank_conflicts },
    Metric { name: "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", fill: add_bank_conflicts },
    Metric {
        name: "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
        fill: |counters, value| counters.barrier_stalls_per_issue = Some(value),
    },
    Metric {
        name: "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
        fill: |counters, value| counters.memory_stalls_per_issue = Some(value),
    },
];

/// Bank conflicts of loads or of stores, added into the one counter.
fn add_bank_conflicts(counters: &mut Counters, value: f64) {
    *counters.shared_bank_conflicts.get_or_insert(0.0) += value;
}

/// What `--counters` read for a sweep as a whole: the copy its DRAM rates are a percentage of,
/// and the profiler, or why there are no counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountersRun {
    /// A device-to-device copy of half a pass's bytes and at least 256 MiB, timed in the same
    /// run as the rows, read and write counted: bytes per second (`None`: not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_bytes_per_second: Option<f64>,
    /// What read the counters ("Nsight Compute 2025.3.1.0"), where they were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler: Option<String>,
    /// Why no row has counters (no profiler, no permission), one line; `None` where they were
    /// read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

impl CountersRun {
    /// `counters`' DRAM rate as a percentage of the copy, where both are known.
    pub fn percent_of_copy(&self, counters: &Counters) -> Option<f64> {
        let copy = self.copy_bytes_per_second.filter(|copy| *copy > 0.0)?;
        Some(counters.dram_bytes_per_second? / copy * 100.0)
    }

    /// A row's `counters` as the rules of [`Bound`] and [`Loss`] read them, beside its
    /// theoretical occupancy in percent and what bounds it.
    pub fn reading<'a>(
        &self,
        counters: &'a Counters,
        theoretical: f64,
        limiters: &'a [Limiter],
    ) -> Reading<'a> {
        Reading { counters, percent_of_copy: self.percent_of_copy(counters), theoretical, limiters }
    }
}

/// A DRAM rate at or above this percentage of the copy is bound by bandwidth.
pub const BANDWIDTH_BOUND_PERCENT: f64 = 75.0;
/// A warp execution efficiency below this percentage is divergence (or idle lanes).
pub const DIVERGENT_BELOW_PERCENT: f64 = 85.0;
/// An achieved occupancy below this percentage, with memory not saturated, is occupancy.
pub const LOW_OCCUPANCY_PERCENT: f64 = 60.0;

/// What bound a row, from its counters, in the order the rules try them.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// DRAM at `percent` of the copy ([`BANDWIDTH_BOUND_PERCENT`] or more).
    Bandwidth { percent: f64 },
    /// Lanes idle or diverged: warp efficiency below [`DIVERGENT_BELOW_PERCENT`].
    Divergence { warp_efficiency: f64 },
    /// Too few warps resident: achieved occupancy below [`LOW_OCCUPANCY_PERCENT`], with what
    /// bounds the theoretical one.
    Occupancy { achieved: f64, theoretical: f64, limiters: Vec<Limiter> },
    /// Warps wait at barriers more than on memory.
    Barriers { stalls_per_issue: f64 },
    /// Warps wait on memory (the long scoreboard) with bandwidth to spare: latency.
    MemoryLatency { stalls_per_issue: f64, percent_of_copy: Option<f64> },
    /// None of the above could be told from the counters read.
    Unclear,
}

impl Bound {
    /// The rules, applied to one row's reading: bandwidth, then divergence, occupancy, barriers
    /// and memory latency.
    pub fn of(reading: Reading) -> Self {
        let Reading { counters, percent_of_copy, theoretical, limiters } = reading;
        if let Some(percent) = percent_of_copy.filter(|percent| *percent >= BANDWIDTH_BOUND_PERCENT) {
            return Self::Bandwidth { percent };
        }
        if let Some(warp_efficiency) =
            counters.warp_efficiency_percent.filter(|efficiency| *efficiency < DIVERGENT_BELOW_PERCENT)
        {
            return Self::Divergence { warp_efficiency };
        }
        if let Some(achieved) =
            counters.achieved_occupancy_percent.filter(|achieved| *achieved < LOW_OCCUPANCY_PERCENT)
        {
            return Self::Occupancy { achieved, theoretical, limiters: limiters.to_vec() };
        }
        match (counters.barrier_stalls_per_issue, counters.memory_stalls_per_issue) {
            (Some(barrier), memory) if barrier > memory.unwrap_or(0.0) && barrier > 0.0 => {
                Self::Barriers { stalls_per_issue: barrier }
            }
            (_, Some(memory)) if memory > 0.0 => {
                Self::MemoryLatency { stalls_per_issue: memory, percent_of_copy }
            }
            _ => Self::Unclear,
        }
    }

    /// Which rule it is, one word: rows bound alike say the same.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Bandwidth { .. } => "bandwidth",
            Self::Divergence { .. } => "divergence",
            Self::Occupancy { .. } => "occupancy",
            Self::Barriers { .. } => "barriers",
            Self::MemoryLatency { .. } => "memory latency",
            Self::Unclear => "unclear",
        }
    }

    /// The bound in words, with the reading that decided it.
    pub fn phrase(&self) -> String {
        match self {
            Self::Bandwidth { percent } => format!("DRAM bandwidth, at {percent:.0}% of the copy"),
            Self::Divergence { warp_efficiency } => {
                format!("divergence or idle lanes, warp execution efficiency {warp_efficiency:.0}%")
            }
            Self::Occupancy { achieved, theoretical, limiters } => {
                let by = match limiters.is_empty() {
                    true => String::new(),
                    false => format!(", bound by {}", limiter_words(limiters)),
                };
                format!("occupancy, {achieved:.0}% achieved of {theoretical:.0}% theoretical{by}")
            }
            Self::Barriers { stalls_per_issue } => {
                format!("barriers, {stalls_per_issue:.2} warps stalled at a barrier per issued instruction")
            }
            Self::MemoryLatency { stalls_per_issue, percent_of_copy } => {
                let at = percent_of_copy
                    .map(|percent| format!(" with DRAM at {percent:.0}% of the copy"))
                    .unwrap_or_default();
                format!(
                    "memory latency, {stalls_per_issue:.2} warps waiting on memory per issued instruction{at}"
                )
            }
            Self::Unclear => "not told by the counters read".to_string(),
        }
    }
}

/// Warp efficiency this many points below the best row's is a loss to idle lanes or divergence.
pub const LOSS_EFFICIENCY_POINTS: f64 = 5.0;
/// Achieved occupancy below this fraction of the best row's is a loss to occupancy.
pub const LOSS_OCCUPANCY_FRACTION: f64 = 0.9;
/// A DRAM rate this many points of the copy below the best row's is a loss of bandwidth.
pub const LOSS_BANDWIDTH_POINTS: f64 = 5.0;

/// Why a slower row lost to the best one, by what its counters read against the best row's, in
/// the order the rules try them.
#[derive(Debug, Clone, PartialEq)]
pub enum Loss {
    /// Idle lanes or divergence: warp efficiency [`LOSS_EFFICIENCY_POINTS`] or more below.
    Lanes { efficiency: f64, best: f64 },
    /// Fewer warps resident: achieved occupancy below [`LOSS_OCCUPANCY_FRACTION`] of the best
    /// row's, with the row's theoretical occupancy and what bounds it.
    Occupancy { achieved: f64, theoretical: f64, limiters: Vec<Limiter>, best: f64 },
    /// Less of the copy's bandwidth with neither of the above (a partial last wave, latency):
    /// [`LOSS_BANDWIDTH_POINTS`] or more below.
    Bandwidth { percent: f64, best: f64 },
}

/// One row's readings for [`Loss::against`]: its counters, its DRAM rate as a percentage of
/// the copy, its theoretical occupancy in percent and what bounds it.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    pub counters: &'a Counters,
    pub percent_of_copy: Option<f64>,
    pub theoretical: f64,
    pub limiters: &'a [Limiter],
}

impl Loss {
    /// Why `row` is slower than `best`, where its counters say: `None` where they read as the
    /// best row's.
    pub fn against(row: Reading, best: Reading) -> Option<Self> {
        let (row_counters, best_counters) = (row.counters, best.counters);
        if let (Some(efficiency), Some(best)) =
            (row_counters.warp_efficiency_percent, best_counters.warp_efficiency_percent)
            && efficiency <= best - LOSS_EFFICIENCY_POINTS
        {
            return Some(Self::Lanes { efficiency, best });
        }
        if let (Some(achieved), Some(best)) =
            (row_counters.achieved_occupancy_percent, best_counters.achieved_occupancy_percent)
            && achieved < best * LOSS_OCCUPANCY_FRACTION
        {
            return Some(Self::Occupancy {
                achieved,
                theoretical: row.theoretical,
                limiters: row.limiters.to_vec(),
                best,
            });
        }
        match (row.percent_of_copy, best.percent_of_copy) {
            (Some(percent), Some(best)) if percent <= best - LOSS_BANDWIDTH_POINTS => {
                Some(Self::Bandwidth { percent, best })
            }
            _ => None,
        }
    }

    /// The loss in words, with the readings that decided it against those of the faster row,
    /// read as `whose` ("the best row's", "nvcc's").
    pub fn phrase(&self, whose: &str) -> String {
        match self {
            Self::Lanes { efficiency, best } => {
                format!(
                    "idle lanes or divergence, warp execution efficiency {efficiency:.0}% against {whose} {best:.0}%"
                )
            }
            Self::Occupancy { achieved, theoretical, limiters, best } => {
                let by = match limiters.is_empty() {
                    true => String::new(),
                    false => format!(", bound by {}", limiter_words(limiters)),
                };
                format!(
                    "occupancy, {achieved:.0}% achieved of {theoretical:.0}% theoretical{by}, against {whose} {best:.0}%"
                )
            }
            Self::Bandwidth { percent, best } => {
                format!("less bandwidth, DRAM at {percent:.0}% of the copy against {whose} {best:.0}%")
            }
        }
    }
}

/// The occupancy model's limiters in words: "blocks per SM", "warps and registers per SM".
fn limiter_words(limiters: &[Limiter]) -> String {
    let names: Vec<String> = limiters.iter().map(Limiter::to_string).collect();
    format!("{} per SM", names.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(dram: f64, occupancy: f64, efficiency: f64) -> Counters {
        Counters {
            dram_bytes_per_second: Some(dram),
            achieved_occupancy_percent: Some(occupancy),
            warp_efficiency_percent: Some(efficiency),
            barrier_stalls_per_issue: Some(0.1),
            memory_stalls_per_issue: Some(3.0),
            ..Counters::default()
        }
    }

    const COPY: CountersRun =
        CountersRun { copy_bytes_per_second: Some(4.0e12), profiler: None, unavailable: None };

    #[test]
    fn a_row_near_the_copy_is_bound_by_bandwidth() {
        let row = counters(3.6e12, 90.0, 100.0);
        let percent = COPY.percent_of_copy(&row);
        assert_eq!(percent, Some(90.0));
        let bound = Bound::of(COPY.reading(&row, 100.0, &[]));
        assert_eq!(bound, Bound::Bandwidth { percent: 90.0 });
        assert_eq!(bound.phrase(), "DRAM bandwidth, at 90% of the copy");
    }

    #[test]
    fn a_row_bound_by_blocks_per_sm_says_so_with_both_occupancies() {
        let row = counters(1.0e12, 24.0, 100.0);
        let bound = Bound::of(COPY.reading(&row, 25.0, &[Limiter::Blocks]));
        assert_eq!(bound.kind(), "occupancy");
        assert_eq!(bound.phrase(), "occupancy, 24% achieved of 25% theoretical, bound by blocks per SM");
    }

    #[test]
    fn idle_lanes_come_before_occupancy() {
        let row = counters(1.0e12, 24.0, 50.0);
        assert_eq!(Bound::of(COPY.reading(&row, 25.0, &[])), Bound::Divergence { warp_efficiency: 50.0 });
    }

    #[test]
    fn stalls_decide_between_barriers_and_memory_latency() {
        let mut row = counters(2.0e12, 90.0, 100.0);
        assert_eq!(Bound::of(COPY.reading(&row, 100.0, &[])).kind(), "memory latency");
        row.barrier_stalls_per_issue = Some(5.0);
        assert_eq!(Bound::of(COPY.reading(&row, 100.0, &[])).kind(), "barriers");
        assert_eq!(
            Bound::of(Reading {
                counters: &Counters::default(),
                percent_of_copy: None,
                theoretical: 100.0,
                limiters: &[]
            }),
            Bound::Unclear
        );
    }

    fn reading<'a>(counters: &'a Counters, limiters: &'a [Limiter], theoretical: f64) -> Reading<'a> {
        COPY.reading(counters, theoretical, limiters)
    }

    #[test]
    fn a_slower_row_loses_to_idle_lanes_then_occupancy_then_bandwidth() {
        let best = counters(3.6e12, 94.0, 100.0);
        let best = reading(&best, &[], 100.0);
        // 16 threads a block: half of each warp idle, and too few warps.
        let sixteen = counters(1.8e12, 48.0, 50.0);
        let loss = Loss::against(reading(&sixteen, &[Limiter::Blocks], 50.0), best).unwrap();
        assert_eq!(
            loss.phrase("the best row's"),
            "idle lanes or divergence, warp execution efficiency 50% against the best row's 100%"
        );
        // 768 threads: two blocks an SM, 75 percent theoretical.
        let seven_sixty_eight = counters(3.4e12, 71.0, 100.0);
        let loss = Loss::against(reading(&seven_sixty_eight, &[Limiter::Warps], 75.0), best).unwrap();
        assert_eq!(
            loss.phrase("the best row's"),
            "occupancy, 71% achieved of 75% theoretical, bound by warps per SM, against the best row's 94%"
        );
        // A partial last wave: full occupancy, less bandwidth.
        let tail = counters(2.8e12, 90.0, 100.0);
        let loss = Loss::against(reading(&tail, &[], 100.0), best).unwrap();
        assert_eq!(loss.phrase("nvcc's"), "less bandwidth, DRAM at 70% of the copy against nvcc's 90%");
        // Counters as the best row's: nothing to say.
        let alike = counters(3.5e12, 93.0, 100.0);
        assert_eq!(Loss::against(reading(&alike, &[], 100.0), best), None);
    }

    #[test]
    fn no_copy_no_percentage() {
        let run = CountersRun { copy_bytes_per_second: None, ..COPY };
        assert_eq!(run.percent_of_copy(&counters(1.0, 1.0, 1.0)), None);
        assert_eq!(COPY.percent_of_copy(&Counters::default()), None);
    }
}
