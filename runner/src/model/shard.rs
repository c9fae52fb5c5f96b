/*!
One sweep split into shards (`--shard I/N`): configuration `k` of the sweep, counted from 0 in
the order the unsplit sweep measures them (each configuration of the axes in turn, its block
sizes in order), belongs to shard `k mod N + 1`. Dealing the configurations out in turn, not in
runs, gives every shard a share of each block size and of each configuration of the axes, so
that shards on identical GPUs take about the same time; the rule needs no device, so every
machine of a cluster computes the same split, and `block-size merge` deals the rows back.
*/

use serde::{Deserialize, Serialize};

/// Shard `index` of `count` (`--shard INDEX/COUNT`, `index` from 1). Read from a file (a
/// part for `merge`, a journal) only where 1 <= index <= count: another machine's file is
/// outside input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ShardFields")]
pub struct Shard {
    /// Which shard, from 1.
    pub(crate) index: u32,
    /// How many shards the sweep is split into.
    pub(crate) count: u32,
}

impl Shard {
    /// `I/N` with 1 <= I <= N; `Err` with the one line that says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let parsed =
            text.split_once('/').and_then(|(index, count)| Some((index.parse().ok()?, count.parse().ok()?)));
        parsed
            .and_then(|(index, count)| Self::new(index, count))
            .ok_or_else(|| format!("`{text}` is not INDEX/COUNT with INDEX from 1 to COUNT, such as 1/4"))
    }

    /// Shard `index` of `count`, where 1 <= index <= count.
    pub(crate) fn new(index: u32, count: u32) -> Option<Self> {
        (index >= 1 && index <= count).then_some(Self { index, count })
    }

    /// Whether configuration `k` of the sweep (from 0) is this shard's.
    pub(crate) fn holds(self, k: usize) -> bool {
        k % self.count as usize == (self.index - 1) as usize
    }

    /// How many of `configurations` are this shard's.
    pub(crate) fn share(self, configurations: usize) -> usize {
        (0..configurations).filter(|&k| self.holds(k)).count()
    }
}

/// A shard as a file spells it, before [`Shard::new`] takes it.
#[derive(Deserialize)]
struct ShardFields {
    index: u32,
    count: u32,
}

impl TryFrom<ShardFields> for Shard {
    type Error = String;

    fn try_from(ShardFields { index, count }: ShardFields) -> Result<Self, String> {
        Self::new(index, count)
            .ok_or_else(|| format!("shard {index}/{count} is no shard: its index runs from 1 to its count"))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A shard's place in its sweep: which shard, of a sweep of how many configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOf {
    /// Which shard.
    #[serde(flatten)]
    pub shard: Shard,
    /// Configurations of the whole sweep (every shard's together).
    pub configurations: usize,
}

/// Deals the rows of every shard of a sweep back into the sweep's order: `parts[i]` holds
/// shard `i + 1`'s rows in its own order; the result has row `k` from shard `k mod N + 1`.
/// `Err` where a part holds more or fewer rows than its share of `configurations`.
pub fn deal_back<T>(parts: Vec<Vec<T>>, configurations: usize) -> Result<Vec<T>, String> {
    let count = parts.len();
    for (i, part) in parts.iter().enumerate() {
        let shard = Shard { index: i as u32 + 1, count: count as u32 };
        if part.len() != shard.share(configurations) {
            return Err(format!(
                "shard {shard} has {} row(s) where its share of the sweep's {configurations} configurations is {}",
                part.len(),
                shard.share(configurations)
            ));
        }
    }
    let mut parts: Vec<std::vec::IntoIter<T>> = parts.into_iter().map(Vec::into_iter).collect();
    Ok((0..configurations).map(|k| parts[k % count].next().expect("its share was counted")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_index_over_count_from_one() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(Shard::parse("1/1").unwrap().to_string(), "1/1");
        for bad in ["0/4", "5/4", "1/0", "4", "a/b", "1/4/2", "-1/4", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_shard_read_from_a_file_is_one_from_one_to_its_count() {
        let read = |text: &str| serde_json::from_str::<ShardOf>(text).map_err(|error| error.to_string());
        assert_eq!(
            read(r#"{"index": 2, "count": 4, "configurations": 13}"#),
            Ok(ShardOf { shard: Shard { index: 2, count: 4 }, configurations: 13 })
        );
        for bad in [(0, 4), (5, 4), (1, 0)] {
            let text = format!(r#"{{"index": {}, "count": {}, "configurations": 13}}"#, bad.0, bad.1);
            let why = read(&text).unwrap_err();
            assert!(why.contains(&format!("shard {}/{} is no shard", bad.0, bad.1)), "{why}");
        }
    }

    #[test]
    fn the_shards_deal_every_configuration_to_exactly_one() {
        for count in 1..6u32 {
            for configurations in 0..20 {
                let mut seen = vec![0; configurations];
                for index in 1..=count {
                    let shard = Shard::new(index, count).unwrap();
                    (0..configurations).filter(|&k| shard.holds(k)).for_each(|k| seen[k] += 1);
                    assert_eq!(
                        shard.share(configurations),
                        (0..configurations).filter(|&k| shard.holds(k)).count()
                    );
                }
                assert!(seen.iter().all(|&n| n == 1), "{count} shards of {configurations}");
            }
        }
    }

    #[test]
    fn dealing_back_restores_the_unsplit_order() {
        let configurations = 11;
        let parts: Vec<Vec<usize>> = (1..=3)
            .map(|index| {
                let shard = Shard::new(index, 3).unwrap();
                (0..configurations).filter(|&k| shard.holds(k)).collect()
            })
            .collect();
        assert_eq!(
            deal_back(parts.clone(), configurations).unwrap(),
            (0..configurations).collect::<Vec<_>>()
        );
        let mut short = parts;
        short[1].pop();
        assert_eq!(
            deal_back(short, configurations).unwrap_err(),
            "shard 2/3 has 3 row(s) where its share of the sweep's 11 configurations is 4"
        );
    }
}
