/*!
`cargo xtask public-items --face FILE`: the table under `## The face` in FILE
(docs/library.md) held to the census, so that the page a user learns the library from names
what the library has and nothing it lacks.

The table's words. Each name in backticks is a mention; a name followed (after an optional
link, `[`Kernel`](#kernel)`) by a group in parentheses is a list of that name's members: every
name in backticks inside the group, and `N fields` for a struct whose fields the page counts
rather than names. The rules:

- an item that is not a member (a type, a function, a trait, a module's constant) is mentioned
  somewhere in the table;
- a member of a type (field, variant, method, associated item) is named in that type's group, or,
  for a field, counted there by an `N fields` that equals the type's public fields;
- a name in the group of a type or module the census has members of is one of them (a trait's
  group may say what implements it: traits are left out of this rule).
*/

use crate::public_items::{Census, Kind};
use anyhow::{Context as _, Result, ensure};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The heading the table sits under.
const HEADING: &str = "## The face";

/// A name and its group in the table: `Shard` (`parse`).
#[derive(Debug, Default)]
struct Listed {
    /// The backticked names inside its groups.
    members: BTreeSet<String>,
    /// What its `N fields` says, where a group says it.
    fields: Option<usize>,
}

/// What the table says.
#[derive(Debug, Default)]
struct Table {
    /// Every backticked name, in or out of a group.
    mentioned: BTreeSet<String>,
    /// The names that have a group, by name.
    listed: BTreeMap<String, Listed>,
}

/// Holds the face table of `page` (relative to `repo`) to `census`: each problem on a line of
/// its own, then an error if there was any.
pub fn check_page(repo: &Path, census: &Census, page: &str) -> Result<()> {
    let text = std::fs::read_to_string(repo.join(page)).with_context(|| page.to_string())?;
    let problems = check(census, &text, page);
    for problem in &problems {
        println!("{problem}");
    }
    ensure!(
        problems.is_empty(),
        "{page}: its face table and the library differ in {} places (listed above)",
        problems.len()
    );
    Ok(())
}

/// The problems with the face table of `page` (named `file` in them) against `census`; none
/// when it is true.
pub fn check(census: &Census, page: &str, file: &str) -> Vec<String> {
    let Some(table) = read_table(page) else {
        return vec![format!("{file}: no table under `{HEADING}`")];
    };
    let mut problems = Vec::new();
    // The members of each name: a type's, or a module's (its items).
    let mut members: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut fields: BTreeMap<&str, usize> = BTreeMap::new();
    let mut traits = BTreeSet::new();
    for item in &census.items {
        // `krate::Type::member`: `Type` its parent; a top-level item's parent is the crate,
        // which no group of the table names.
        let (owner, name) = item.path.rsplit_once("::").unwrap_or(("", &item.path));
        let parent = owner.rsplit("::").next().unwrap_or(owner);
        members.entry(parent).or_default().insert(name);
        if item.kind == Kind::Trait {
            traits.insert(name);
        }
        if !is_member(item.kind) {
            if !table.mentioned.contains(name) {
                problems.push(format!("{file}: `{}` is public and not in the face table", &item.path));
            }
            continue;
        }
        let listed = table.listed.get(parent);
        if item.kind == Kind::Field {
            *fields.entry(parent).or_default() += 1;
            if listed.is_some_and(|listed| listed.fields.is_some()) {
                continue;
            }
        }
        if !listed.is_some_and(|listed| listed.members.contains(name)) {
            problems.push(format!(
                "{file}: `{}` is public and not in `{parent}`'s list in the face table",
                &item.path
            ));
        }
    }
    for (name, listed) in &table.listed {
        if let Some(said) = listed.fields {
            let has = fields.get(name.as_str()).copied().unwrap_or(0);
            if said != has {
                problems
                    .push(format!("{file}: the face table says `{name}` has {said} fields; it has {has}"));
            }
        }
        let Some(has) = members.get(name.as_str()) else { continue };
        if traits.contains(name.as_str()) {
            continue;
        }
        for member in &listed.members {
            if !has.contains(member.as_str()) {
                problems
                    .push(format!("{file}: the face table lists `{name}::{member}`, which is not public"));
            }
        }
    }
    problems
}

/// Whether an item of `kind` belongs to a type (and is listed in its group).
fn is_member(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Field | Kind::Variant | Kind::Method | Kind::AssociatedConstant | Kind::AssociatedType
    )
}

/// The table under [`HEADING`]: its rows, header and rule included (they hold no backticks).
fn read_table(page: &str) -> Option<Table> {
    let after = &page[page.find(HEADING)? + HEADING.len()..];
    let rows: Vec<&str> = after
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut table = Table::default();
    for row in rows {
        read_row(row, &mut table);
    }
    Some(table)
}

/// The mentions and groups of one row.
fn read_row(row: &str, table: &mut Table) {
    let mut rest = row;
    while let Some((name, after)) = next_name(rest) {
        table.mentioned.insert(name.to_string());
        rest = after;
        let Some((group, after)) = group_after(rest) else { continue };
        let listed = table.listed.entry(name.to_string()).or_default();
        let mut inner = group;
        while let Some((member, after)) = next_name(inner) {
            table.mentioned.insert(member.to_string());
            listed.members.insert(member.to_string());
            inner = after;
        }
        listed.fields = listed.fields.or_else(|| field_count(group));
        rest = after;
    }
}

/// The next name in backticks in `text`, and the text after it.
fn next_name(text: &str) -> Option<(&str, &str)> {
    let start = text.find('`')? + 1;
    let length = text[start..].find('`')?;
    Some((&text[start..start + length], &text[start + length + 1..]))
}

/// The group in parentheses that follows a name (after its link's `](…)` and spaces, if any):
/// its text without the outer parentheses, and the text after it.
fn group_after(text: &str) -> Option<(&str, &str)> {
    let mut text = text;
    if let Some(link) = text.strip_prefix("](") {
        text = &link[link.find(')')? + 1..];
    }
    let text = text.trim_start_matches(' ');
    let inner = text.strip_prefix('(')?;
    let mut depth = 1;
    for (at, byte) in inner.bytes().enumerate() {
        match byte {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return Some((&inner[..at], &inner[at + 1..]));
        }
    }
    None
}

/// `N` where `group` says `N fields`.
fn field_count(group: &str) -> Option<usize> {
    let words: Vec<&str> = group.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    words.windows(2).find(|pair| pair[1] == "fields").and_then(|pair| pair[0].parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public_items::PublicItem;

    fn census(items: &[(Kind, &str)]) -> Census {
        Census {
            format_version: 57,
            items: items
                .iter()
                .map(|&(kind, path)| PublicItem {
                    kind,
                    path: path.into(),
                    other_kind: String::new(),
                    documented: true,
                })
                .collect(),
            modules: 1,
            notes: vec![],
        }
    }

    fn face() -> Census {
        census(&[
            (Kind::Struct, "krate::Kernel"),
            (Kind::Method, "krate::Kernel::new"),
            (Kind::Method, "krate::Kernel::domain"),
            (Kind::Struct, "krate::Settings"),
            (Kind::Field, "krate::Settings::grid"),
            (Kind::Field, "krate::Settings::device"),
            (Kind::Method, "krate::Settings::validate"),
            (Kind::Enum, "krate::Agreement"),
            (Kind::Variant, "krate::Agreement::BitForBit"),
            (Kind::Trait, "krate::Element"),
            (Kind::Function, "krate::commands::diff"),
            (Kind::Constant, "krate::exit::USAGE"),
        ])
    }

    const PAGE: &str = "# The library\n\nThe `Kernel` is prose here.\n\n## The face\n\n\
        | group | items |\n|---|---|\n\
        | kernel | [`Kernel`](#kernel) (`new`, [`domain`](#shapes)); `Agreement` (`BitForBit`); `Element` (sealed: `f32`) |\n\
        | settings | [`Settings`](#settings) (2 fields, `validate`) |\n\
        | commands | [`commands`](#gpu): `diff`; `exit` (`USAGE`) |\n\nAfter the table, `Gone` (`x`).\n";

    #[test]
    fn a_true_table_has_no_problems() {
        assert_eq!(check(&face(), PAGE, "page.md"), Vec::<String>::new());
    }

    #[test]
    fn a_missing_item_a_missing_member_a_wrong_count_and_a_member_that_is_not_are_each_named() {
        let page = PAGE
            .replace("`Agreement` (`BitForBit`); ", "")
            .replace("2 fields", "3 fields")
            .replace("`new`, ", "`new`, `old`, ")
            .replace("[`domain`](#shapes)", "domain");
        assert_eq!(
            check(&face(), &page, "page.md"),
            [
                "page.md: `krate::Kernel::domain` is public and not in `Kernel`'s list in the face table",
                "page.md: `krate::Agreement` is public and not in the face table",
                "page.md: `krate::Agreement::BitForBit` is public and not in `Agreement`'s list in the face table",
                "page.md: the face table lists `Kernel::old`, which is not public",
                "page.md: the face table says `Settings` has 3 fields; it has 2",
            ]
        );
    }

    #[test]
    fn fields_are_named_where_no_count_is_given_and_a_page_without_the_table_is_refused() {
        let page = PAGE.replace("(2 fields, `validate`)", "(`grid`, `validate`)");
        assert_eq!(
            check(&face(), &page, "page.md"),
            ["page.md: `krate::Settings::device` is public and not in `Settings`'s list in the face table"]
        );
        assert_eq!(check(&face(), "# The library\n", "page.md"), ["page.md: no table under `## The face`"]);
    }
}
