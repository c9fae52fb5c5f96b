/*!
Tuning axes beyond the block size: what a [`crate::Kernel`] is swept over ([`Axis`]), and the
values one configuration has on them ([`AxisValues`]), which every row, export, journal line
and emitted file carries.

An axis is named and has a list of values. Each value feeds one thing:

- [`Axis::entries`]: a PTX entry point (a variant of the kernel: `sum_x4`);
- [`Axis::integers`] and [`Axis::powers_of_two`]: a number, which the kernel's closures read
  from the configuration ([`crate::Variant::integer`]) for a kernel argument
  ([`crate::Arg::Axis`]), the dynamic shared memory, or a restriction;
- [`Axis::grid`]: the grid policy of the configurations ([`crate::GridPolicy`]).

A sweep runs the cross product of the block sizes and every axis, first axis outermost, less
what a restriction ([`crate::Kernel::restrict`]) leaves out and what cannot launch on the
device (pruned, each with its reason: [`crate::search::sweep::Row::pruned`]).
*/

use crate::model::axis_values::AxisValues;
use crate::model::grid::GridPolicy;

/// One named axis and its values, in the order the table shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    pub(crate) name: &'static str,
    pub(crate) values: AxisKind,
}

/// What an axis's values are, and what they feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AxisKind {
    /// Each value launches its own entry point: (value as the table shows it, entry).
    Entries(Vec<(String, &'static str)>),
    /// Numbers for the kernel's closures.
    Integers(Vec<u64>),
    /// Grid policies.
    Grid(Vec<GridPolicy>),
}

impl Axis {
    /// An axis of variants of the kernel, each value an entry point of the module: `("4",
    /// "sum_x4")` launches `sum_x4` where the axis is 4. At most one axis of a kernel selects
    /// entries.
    pub fn entries<V: Into<String>>(
        name: &'static str,
        values: impl IntoIterator<Item = (V, &'static str)>,
    ) -> Self {
        let values = values.into_iter().map(|(value, entry)| (value.into(), entry)).collect();
        Self { name, values: AxisKind::Entries(values) }
    }

    /// An axis of integers (a tile width, an unroll factor, bins), in the order given: the
    /// kernel's closures read a configuration's with [`crate::Variant::integer`], and
    /// [`crate::Arg::Axis`] passes it as an argument.
    pub fn integers(name: &'static str, values: impl IntoIterator<Item = u64>) -> Self {
        Self { name, values: AxisKind::Integers(values.into_iter().collect()) }
    }

    /// The powers of two from `from` to `to`, both included (`powers_of_two("tile", 1, 16)`:
    /// 1, 2, 4, 8, 16). A bound that is no power of two is taken to the next one up (`from`)
    /// or down (`to`); no value where `from > to`.
    pub fn powers_of_two(name: &'static str, from: u64, to: u64) -> Self {
        let first = from.max(1).checked_next_power_of_two();
        let values =
            std::iter::successors(first, |value| value.checked_mul(2)).take_while(|&value| value <= to);
        Self::integers(name, values)
    }

    /// An axis of grid policies: each configuration launches the grid its value says, instead
    /// of the sweep's `--grid` (`GridPolicy::Waves(2)` is shown as `waves:2`).
    pub fn grid(name: &'static str, policies: impl IntoIterator<Item = GridPolicy>) -> Self {
        Self { name, values: AxisKind::Grid(policies.into_iter().collect()) }
    }

    /// Its name.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// Its values as the table shows them.
    pub(crate) fn labels(&self) -> Vec<String> {
        match &self.values {
            AxisKind::Entries(values) => values.iter().map(|(value, _)| value.clone()).collect(),
            AxisKind::Integers(values) => values.iter().map(u64::to_string).collect(),
            AxisKind::Grid(values) => values.iter().map(|policy| policy.name()).collect(),
        }
    }

    /// How many values it has.
    pub(crate) fn len(&self) -> usize {
        match &self.values {
            AxisKind::Entries(values) => values.len(),
            AxisKind::Integers(values) => values.len(),
            AxisKind::Grid(values) => values.len(),
        }
    }

    /// Whether it has no value (a sweep refuses such an axis).
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One configuration of the axes: its values, the entry it launches, the grid it launches
/// where an axis says, its numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Point {
    pub values: AxisValues,
    pub entry: Option<&'static str>,
    pub grid: Option<GridPolicy>,
    pub integers: Vec<(&'static str, u64)>,
}

/// The cross product of `axes`, first axis outermost; one point with no value where there is
/// no axis. `Err` with one line where an axis has no value, two share a name, or two select
/// entries.
pub(crate) fn cross(axes: &[Axis]) -> Result<Vec<Point>, String> {
    for (index, axis) in axes.iter().enumerate() {
        if axis.is_empty() {
            return Err(format!("the axis `{}` has no values", axis.name));
        }
        if axes[..index].iter().any(|other| other.name == axis.name) {
            return Err(format!("two axes are named `{}`", axis.name));
        }
    }
    let entry_axes = axes.iter().filter(|axis| matches!(axis.values, AxisKind::Entries(_))).count();
    if entry_axes > 1 {
        return Err(format!("{entry_axes} axes select entry points; at most one may"));
    }
    for axis in axes {
        if let AxisKind::Grid(policies) = &axis.values
            && policies.contains(&GridPolicy::Waves(0))
        {
            return Err(format!(
                "the axis `{}` has waves:0, which launches nothing: give waves:1 or more",
                axis.name
            ));
        }
    }
    let grid_axes = axes.iter().filter(|axis| matches!(axis.values, AxisKind::Grid(_))).count();
    if grid_axes > 1 {
        return Err(format!("{grid_axes} axes set the grid; at most one may"));
    }
    let mut points =
        vec![Point { values: AxisValues::none(), entry: None, grid: None, integers: Vec::new() }];
    for axis in axes {
        let labels = axis.labels();
        points = points
            .into_iter()
            .flat_map(|point| {
                labels.iter().enumerate().map(move |(index, label)| {
                    let mut next = point.clone();
                    next.values.0.push((axis.name.to_string(), label.clone()));
                    match &axis.values {
                        AxisKind::Entries(values) => next.entry = Some(values[index].1),
                        AxisKind::Integers(values) => next.integers.push((axis.name, values[index])),
                        AxisKind::Grid(values) => next.grid = Some(values[index]),
                    }
                    next
                })
            })
            .collect();
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cross_product_runs_the_first_axis_outermost() {
        let axes = [
            Axis::entries("items/thr", [("1", "sum"), ("4", "sum_x4")]),
            Axis::powers_of_two("unroll", 1, 4),
            Axis::grid("grid", [GridPolicy::OneWave, GridPolicy::Waves(2)]),
        ];
        let points = cross(&axes).unwrap();
        assert_eq!(points.len(), 2 * 3 * 2);
        assert_eq!(points[0].values.to_string(), "items/thr 1, unroll 1, grid one-wave");
        assert_eq!(points[1].values.to_string(), "items/thr 1, unroll 1, grid waves:2");
        assert_eq!(points[11].values.to_string(), "items/thr 4, unroll 4, grid waves:2");
        assert_eq!(
            (points[11].entry, points[11].grid, &points[11].integers[..]),
            (Some("sum_x4"), Some(GridPolicy::Waves(2)), &[("unroll", 4)][..])
        );
        let none = cross(&[]).unwrap();
        assert_eq!((none.len(), none[0].values.is_empty(), none[0].entry), (1, true, None));
    }

    #[test]
    fn powers_of_two_round_their_bounds_inward() {
        assert_eq!(Axis::powers_of_two("t", 1, 16).labels(), ["1", "2", "4", "8", "16"]);
        assert_eq!(Axis::powers_of_two("t", 3, 20).labels(), ["4", "8", "16"]);
        assert_eq!(Axis::powers_of_two("t", 0, 1).labels(), ["1"]);
        assert!(Axis::powers_of_two("t", 9, 15).is_empty());
        assert_eq!(
            Axis::powers_of_two("t", 1 << 62, u64::MAX).labels(),
            [(1u64 << 62).to_string(), (1u64 << 63).to_string()]
        );
    }

    #[test]
    fn bad_axes_are_refused_in_one_line() {
        let entries = || Axis::entries("v", [("a", "a")]);
        for (axes, why) in [
            (vec![Axis::integers("tile", [])], "the axis `tile` has no values"),
            (vec![Axis::integers("tile", [1]), Axis::integers("tile", [2])], "two axes are named `tile`"),
            (
                vec![Axis::grid("grid", [GridPolicy::OneWave, GridPolicy::Waves(0)])],
                "the axis `grid` has waves:0, which launches nothing: give waves:1 or more",
            ),
            (
                vec![entries(), Axis::entries("w", [("b", "b")])],
                "2 axes select entry points; at most one may",
            ),
            (
                vec![Axis::grid("g", [GridPolicy::OneWave]), Axis::grid("h", [GridPolicy::PerItem])],
                "2 axes set the grid; at most one may",
            ),
        ] {
            assert_eq!(cross(&axes).unwrap_err(), why);
        }
    }

    #[test]
    fn values_are_an_object_in_the_axes_order_both_ways() {
        let values = AxisValues(vec![("zeta".into(), "1".into()), ("alpha".into(), "waves:2".into())]);
        let json = serde_json::to_string(&values).unwrap();
        assert_eq!(json, r#"{"zeta":"1","alpha":"waves:2"}"#);
        assert_eq!(serde_json::from_str::<AxisValues>(&json).unwrap(), values);
        assert_eq!(values.get("alpha"), Some("waves:2"));
        assert_eq!(values.get("beta"), None);
    }
}
