/*!
[`AxisValues`]: a configuration's value on each axis beyond the block size, which every row,
export, journal line and emitted file carries, and [`configuration_label`], a configuration in
words. The axes themselves, as a kernel is described with them, are the kernel layer's.
*/

use crate::model::block_shape::BlockShape;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A configuration's value on each axis beyond the block size, in the order of the sweep's
/// axes: `items/thr 4, grid waves:2`. Empty where the sweep has no axis. In JSON an object,
/// `{"items/thr": "4", "grid": "waves:2"}`, its keys in the axes' order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AxisValues(pub Vec<(String, String)>);

impl AxisValues {
    /// No axis.
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// Whether there is no axis.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value on the axis `name`, where there is one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(axis, _)| axis == name).map(|(_, value)| value.as_str())
    }

    /// The values alone, in order.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(_, value)| value.as_str())
    }
}

impl fmt::Display for AxisValues {
    /// `items/thr 4, grid waves:2`; empty where there is no axis.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (name, value)) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} {value}")?;
        }
        Ok(())
    }
}

impl Serialize for AxisValues {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for AxisValues {
    /// From an object, its keys in the order the file has them.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = AxisValues;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of axis names and values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AxisValues, A::Error> {
                let mut values = Vec::new();
                while let Some((name, value)) = map.next_entry::<String, String>()? {
                    values.push((name, value));
                }
                Ok(AxisValues(values))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// A configuration in words: `256 threads`, `block 32x8`, or `256 threads, items/thr 4, grid
/// waves:2`.
pub(crate) fn configuration_label(block: BlockShape, axes: &AxisValues) -> String {
    let block = if block.is_linear() { format!("{} threads", block.x) } else { format!("block {block}") };
    if axes.is_empty() { block } else { format!("{block}, {axes}") }
}
