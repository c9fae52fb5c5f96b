/*!
The sentences after a sweep's table, from its record: the Markdown export's, and the HTML
page's where a file did not record its summary lines. They are the table's own words
([`crate::results::table::Summary`], which needs the sweep itself); a test holds the two to
the same text. The noise-driven stop's sentence is the table's own piece
([`crate::results::table::StopCounts`]), counted from the record.
*/

use crate::results::schema::SweepRecord;

/// "cuOccupancyMaxPotentialBlockSize suggests 1024 threads per block and a grid of 264 blocks."
pub(super) fn suggestion(record: &SweepRecord) -> String {
    format!(
        "cuOccupancyMaxPotentialBlockSize suggests {} threads per block and a grid of {} blocks.",
        record.suggestion.threads_per_block, record.suggestion.grid_blocks
    )
}

/// "Fastest measured: 64 threads per block at 0.038 ms.", or with axes "Fastest measured: 64
/// threads per block, items/thr 4, at 0.038 ms."; the table's `NOTHING_MEASURED` where no row
/// was measured.
pub(super) fn fastest(record: &SweepRecord) -> Option<String> {
    let Some(fastest) = record.fastest() else {
        return Some(crate::results::table::NOTHING_MEASURED.to_string());
    };
    let axes = if fastest.axes.is_empty() { String::new() } else { format!(", {},", fastest.axes) };
    Some(format!(
        "Fastest measured: {} threads per block{axes} at {:.3} ms.",
        fastest.threads_per_block, fastest.median_ms
    ))
}

/// Configurations that were launched: every row but the pruned.
fn launched(record: &SweepRecord) -> usize {
    record.rows.iter().filter(|row| row.pruned.is_none()).count()
}

/// "8 of 13 configurations reach at least 95 percent of that row."; `None` where no row was
/// measured (there is no fastest row to reach).
pub(super) fn near_best(record: &SweepRecord) -> Option<String> {
    record.fastest()?;
    Some(format!(
        "{} of {} configurations reach at least 95 percent of that row.",
        record.rows_near_best,
        launched(record)
    ))
}

/// How the noise-driven stop ended the rows, where it ran: "Noise-driven stop: 9 of 13 rows
/// reached MAD/median <= 0.5%, 4 stopped at 0.5 s; 10 to 52 samples a row (runs column)."
pub(super) fn stop(record: &SweepRecord) -> Option<String> {
    let counts = crate::results::table::StopCounts::new(
        record.timing.stop?,
        record.search,
        record.rows.iter().map(|row| row.stopped),
        record.measured_rows().map(|row| row.samples),
    );
    Some(counts.sentence(launched(record)))
}

/// "Not launched, 2 configuration(s) the device cannot launch
/// (docs/search.md): 1024 threads, items/thr 4: ...", a clause per reason; `None` where every
/// configuration was launched.
pub(super) fn pruned(record: &SweepRecord) -> Option<String> {
    let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
    for row in &record.rows {
        let Some(reason) = row.pruned.as_deref() else { continue };
        match reasons.iter_mut().find(|(known, _)| *known == reason) {
            Some((_, configurations)) => configurations.push(row.label()),
            None => reasons.push((reason, vec![row.label()])),
        }
    }
    if reasons.is_empty() {
        return None;
    }
    let count: usize = reasons.iter().map(|(_, configurations)| configurations.len()).sum();
    let clauses: Vec<String> = reasons
        .iter()
        .map(|(reason, configurations)| format!("{}: {reason}", configurations.join("; ")))
        .collect();
    Some(format!(
        "Not launched, {count} configuration(s) the device cannot launch (docs/search.md): {}.",
        clauses.join(". ")
    ))
}
