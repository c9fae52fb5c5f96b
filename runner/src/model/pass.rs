/*!
[`Pass`]: what one pass of a kernel covers and moves, as every table and export describes it
(the GB/s columns count its bytes), and [`Items`], what a pass covers where it is not a frame.
*/

use crate::model::frame_size::{self, FrameSize};
use serde::Serialize;
use std::borrow::Cow;

/// What one pass of a kernel is, as the reports describe it. Its words are the kernel
/// description's (`'static`) or, for a sweep read back from its JSON, the file's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pass {
    /// The kernel's name (`--kernel`).
    pub kernel: Cow<'static, str>,
    /// The frame a pass covers.
    #[serde(skip)]
    pub frame: FrameSize,
    /// Bytes one pass moves, as every GB/s column counts them.
    pub bytes_per_pass: f64,
    /// What those bytes are: "moved per pass" (grayscale: three planes read, one written).
    pub bytes_counted: Cow<'static, str>,
    /// A line on the kernel's parameters, where it has any (the histogram's bins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What a pass covers where it is not a frame of pixels (a user kernel's vector): the
    /// reports then count these items instead, and [`Pass::frame`] is not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Items>,
}

/// A count of the items a pass covers, and what they are called ("values").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Items {
    /// How many.
    pub count: u64,
    /// Their name in the plural, for the header: "values", "particles".
    pub noun: Cow<'static, str>,
}

impl Pass {
    /// The bytes one pass moves over `milliseconds`, in GB/s.
    pub fn gigabytes_per_second(&self, milliseconds: f64) -> f64 {
        frame_size::gigabytes_per_second(self.bytes_per_pass, milliseconds)
    }

    /// Items a pass covers, which the grid policies size grids by: [`Pass::items`]' count, or
    /// the frame's pixels.
    pub fn item_count(&self) -> u64 {
        self.items.as_ref().map_or_else(|| self.frame.pixels(), |items| items.count)
    }
}
