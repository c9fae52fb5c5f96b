/*!
The results layer: what a sweep measured, rendered and read back, with no GPU. The one schema
of a sweep's JSON (`schema`, read from every version this tool wrote) and how a sweep becomes
one (`from_sweep`), the text tables (`table`), the exports (`export`: JSON, CSV, Markdown,
HTML), two sweeps compared (`diff`), the SVG plot (`plot`), and the winners as Rust source
(`emit`).
*/

pub(crate) mod diff;
pub(crate) mod emit;
pub(crate) mod export;
pub(crate) mod from_record;
pub(crate) mod from_sweep;
pub(crate) mod merge;
pub(crate) mod plot;
pub(crate) mod schema;
pub(crate) mod table;
