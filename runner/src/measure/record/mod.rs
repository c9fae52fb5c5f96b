//! The files of record: the journal of finished configurations, the run's provenance, and the
//! provenance stamp of the committed PTX.

pub mod journal;
pub mod provenance;
// The provenance stamp, shared with the PTX builders and the repository tests (stamp/): the
// same file, linked in, so this crate packages without a path dependency.
#[allow(dead_code)]
pub mod stamp;
