//! Whole-pipeline tests on the mock backend: the printed reports and the exports, pinned by
//! snapshots.

mod export;
pub(crate) mod fixture;
