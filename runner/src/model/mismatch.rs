/*!
[`Mismatch`]: where the device computed something other than the reference, as a check reports
it, a journal keeps it and an export writes it.
*/

use serde::Serialize;

/// Where the device computed something other than the CPU reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Mismatch {
    /// The first wrong output element (pixel, bin), where one is wrong.
    pub index: Option<usize>,
    /// What is wrong: "pixel 40960 is -1, the CPU reference says 0.5".
    pub description: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description)
    }
}
