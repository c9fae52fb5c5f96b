/*!
`cargo xtask public-items [--list] [--max N] [--require-docs] [--face FILE] [--target-dir DIR]`: how many public items the
runner library (`block-size-runner`) has, held to at most [`MAX_PUBLIC_ITEMS`] (or `--max N`), read from the rustdoc JSON of its default features
(`cargo rustdoc -p block-size-runner --lib -- -Z unstable-options --output-format json`, into
`target/public-items/` so that it waits on no other build's lock).

The counting rule. An item is counted when a user of the crate can name it by a public path
from the crate root:

- the walk starts at the root module and follows public modules and `pub use` re-exports
  (renamed ones under their new name, globs into the module that has them), whatever private
  module the item is defined in. Modules are followed, not counted (the table says how many);
- it counts, of each item it reaches, structs, enums, unions, functions, traits, trait aliases,
  constants, statics, type aliases and macros; each public field of a struct or union (a tuple
  struct's by number); each variant of an enum (the fields of a variant are the variant's, not
  counted apart); each public method, associated constant and associated type of an inherent
  `impl` of a counted type; each method and associated item of a counted trait;
- it does not count trait impls (`Display::fmt`, `From::from`, `Clone`…: the trait's items are
  counted where the trait is, once, and a foreign trait's are not ours), auto-trait and blanket
  impls, items of crates outside the workspace (std, anyhow…) even where re-exported, private
  items, nor `#[doc(hidden)]` items (rustdoc leaves them out of its JSON);
- an item reached by two paths is counted once, under the shortest (the first found, breadth
  first from the root);
- an item of another crate of the workspace that is re-exported is counted as ours: with its
  members where rustdoc inlined it into this JSON, else alone, with a note.

An item lacks docs when its doc comment is missing or blank; `--require-docs` fails on any.
`--face FILE` holds the table under `## The face` in FILE to what was counted ([`crate::face`]).
*/

use anyhow::{Context as _, Result, bail, ensure};
use serde_json::Value;
use std::collections::{BTreeSet, VecDeque};
use std::ops::RangeInclusive;
use std::path::Path;
use std::process::Command;

/// The rustdoc JSON `format_version`s this reads: 57 is what the pinned nightly writes, and the
/// only one checked. (The older names `import` for `use`, `glob` for `is_glob` and `synthetic`
/// for `is_synthetic`, of format 33 and before, are read too, so that widening this after
/// checking rustdoc-types' changelog is the one change.)
pub const FORMAT_VERSIONS: RangeInclusive<u64> = 57..=57;

/// What a counted item is, in the order the table shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Struct,
    Enum,
    Union,
    Function,
    Trait,
    TraitAlias,
    Constant,
    Static,
    TypeAlias,
    Macro,
    Field,
    Variant,
    Method,
    AssociatedConstant,
    AssociatedType,
    /// A kind of item this does not know (a newer rustdoc's): counted, and named in the list.
    Other,
}

impl Kind {
    const ALL: [Kind; 16] = [
        Kind::Struct,
        Kind::Enum,
        Kind::Union,
        Kind::Function,
        Kind::Trait,
        Kind::TraitAlias,
        Kind::Constant,
        Kind::Static,
        Kind::TypeAlias,
        Kind::Macro,
        Kind::Field,
        Kind::Variant,
        Kind::Method,
        Kind::AssociatedConstant,
        Kind::AssociatedType,
        Kind::Other,
    ];

    /// Its row in the table, plural.
    fn label(self) -> &'static str {
        match self {
            Kind::Struct => "structs",
            Kind::Enum => "enums",
            Kind::Union => "unions",
            Kind::Function => "functions",
            Kind::Trait => "traits",
            Kind::TraitAlias => "trait aliases",
            Kind::Constant => "constants",
            Kind::Static => "statics",
            Kind::TypeAlias => "type aliases",
            Kind::Macro => "macros",
            Kind::Field => "fields",
            Kind::Variant => "enum variants",
            Kind::Method => "methods",
            Kind::AssociatedConstant => "associated constants",
            Kind::AssociatedType => "associated types",
            Kind::Other => "other",
        }
    }

    /// Its name in the list, singular.
    fn name(self) -> &'static str {
        match self {
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Union => "union",
            Kind::Function => "function",
            Kind::Trait => "trait",
            Kind::TraitAlias => "trait alias",
            Kind::Constant => "constant",
            Kind::Static => "static",
            Kind::TypeAlias => "type alias",
            Kind::Macro => "macro",
            Kind::Field => "field",
            Kind::Variant => "variant",
            Kind::Method => "method",
            Kind::AssociatedConstant => "associated constant",
            Kind::AssociatedType => "associated type",
            Kind::Other => "other",
        }
    }

    /// A rustdoc JSON item kind at module level (`inner`'s key); `None` for what is not counted.
    fn of_item(kind: &str) -> Option<Kind> {
        Some(match kind {
            "struct" => Kind::Struct,
            "enum" => Kind::Enum,
            "union" => Kind::Union,
            "function" => Kind::Function,
            "trait" => Kind::Trait,
            "trait_alias" => Kind::TraitAlias,
            "constant" => Kind::Constant,
            "static" => Kind::Static,
            "type_alias" => Kind::TypeAlias,
            "macro" | "proc_macro" => Kind::Macro,
            // Not ours, or nothing a path names.
            "extern_crate" | "primitive" | "impl" | "module" | "use" | "import" => return None,
            _ => Kind::Other,
        })
    }

    /// A member of an `impl` or trait.
    fn of_member(kind: &str) -> Kind {
        match kind {
            "function" => Kind::Method,
            "assoc_const" => Kind::AssociatedConstant,
            "assoc_type" => Kind::AssociatedType,
            _ => Kind::Other,
        }
    }
}

/// One counted item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicItem {
    pub kind: Kind,
    /// The path it was first reached by, from the crate's name: `block_size_runner::Axis`.
    pub path: String,
    /// rustdoc's kind for [`Kind::Other`], else empty.
    pub other_kind: String,
    pub documented: bool,
}

/// What the walk found.
#[derive(Debug)]
pub struct Census {
    pub format_version: u64,
    /// Every counted item, in the order found.
    pub items: Vec<PublicItem>,
    /// The modules followed, the root included.
    pub modules: usize,
    /// Things the JSON could not show in full (a workspace crate's item that was not inlined).
    pub notes: Vec<String>,
}

impl Census {
    /// How many of `kind`.
    pub fn count(&self, kind: Kind) -> usize {
        self.items.iter().filter(|item| item.kind == kind).count()
    }

    /// The table by kind and the total, one row each, after a head line naming `package`.
    pub fn table(&self, package: &str) -> String {
        let mut table = format!(
            "{package}: {} public items reachable from the crate root (rustdoc JSON format {}, default features)\n",
            self.items.len(),
            self.format_version
        );
        for kind in Kind::ALL {
            let count = self.count(kind);
            if kind != Kind::Other || count > 0 {
                table += &format!("  {:<22}{count:>5}\n", kind.label());
            }
        }
        table += &format!("  {:<22}{:>5}\n", "total", self.items.len());
        table += &format!("  ({} modules followed, not counted)\n", self.modules);
        table
    }

    pub fn undocumented(&self) -> impl Iterator<Item = &PublicItem> {
        self.items.iter().filter(|item| !item.documented)
    }
}

/// The most public items `block-size-runner` may have: the one place its cap is written
/// (`scripts/test` runs `cargo xtask public-items --require-docs`, which holds the library to it;
/// docs/library.md gives its history).
pub const MAX_PUBLIC_ITEMS: usize = 149;

/// `cargo xtask public-items`'s options.
#[derive(Debug, PartialEq)]
pub struct Options {
    pub list: bool,
    /// The cap: [`MAX_PUBLIC_ITEMS`] unless `--max N` says otherwise.
    pub max: usize,
    pub require_docs: bool,
    /// The page whose face table must name what was counted (`--face docs/library.md`).
    pub face: Option<String>,
    /// Where rustdoc writes (relative to the repository): `target/public-items` unless given;
    /// `scripts/test` gives `target`, whose dependencies its `cargo doc` has just checked.
    pub target_dir: Option<String>,
}

pub const USAGE: &str =
    "cargo xtask public-items [--list] [--max N] [--require-docs] [--face FILE] [--target-dir DIR]";

impl Default for Options {
    fn default() -> Self {
        Options { list: false, max: MAX_PUBLIC_ITEMS, require_docs: false, face: None, target_dir: None }
    }
}

impl Options {
    pub fn parse(args: &[&str]) -> Result<Options> {
        let mut options = Options::default();
        let mut args = args.iter();
        while let Some(&arg) = args.next() {
            match arg {
                "--list" => options.list = true,
                "--require-docs" => options.require_docs = true,
                "--max" => {
                    let value = args.next().with_context(|| format!("--max needs a number: {USAGE}"))?;
                    options.max = value.parse().with_context(|| format!("--max {value}: not a count"))?;
                }
                "--face" => {
                    let value = args.next().with_context(|| format!("--face needs a page: {USAGE}"))?;
                    options.face = Some(value.to_string());
                }
                "--target-dir" => {
                    let value =
                        args.next().with_context(|| format!("--target-dir needs a folder: {USAGE}"))?;
                    options.target_dir = Some(value.to_string());
                }
                other => bail!("unknown option `{other}`: {USAGE}"),
            }
        }
        Ok(options)
    }
}

/// The package counted, and its crate's name in the JSON file's name.
const PACKAGE: &str = "block-size-runner";

/// Counts, prints the table (and `--list`), and holds the library to the cap and `--require-docs`;
/// returns what it counted, for `--face`.
pub fn run(repo: &Path, options: &Options) -> Result<Census> {
    let target_dir = repo.join(options.target_dir.as_deref().unwrap_or("target/public-items"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut rustdoc = Command::new(&cargo);
    rustdoc
        .current_dir(repo)
        .args(["rustdoc", "--quiet", "--locked", "-p", PACKAGE, "--lib", "--target-dir"])
        .arg(&target_dir)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"]);
    let status = rustdoc.status().with_context(|| format!("running {rustdoc:?}"))?;
    ensure!(status.success(), "{rustdoc:?} failed ({status})");
    let json_path = target_dir.join("doc").join(format!("{}.json", PACKAGE.replace('-', "_")));
    let text = std::fs::read_to_string(&json_path).with_context(|| json_path.display().to_string())?;
    let doc: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", json_path.display()))?;
    let census = census(&doc, &workspace_crates(repo, &cargo)?)
        .with_context(|| json_path.strip_prefix(repo).unwrap_or(&json_path).display().to_string())?;

    print!("{}", census.table(PACKAGE));
    for note in &census.notes {
        println!("note: {note}");
    }
    if options.list {
        let mut items: Vec<&PublicItem> = census.items.iter().collect();
        items.sort_by(|a, b| a.path.cmp(&b.path));
        for item in items {
            let kind = if item.kind == Kind::Other { &item.other_kind } else { item.kind.name() };
            println!("{kind:<22}{}{}", item.path, if item.documented { "" } else { "  (no docs)" });
        }
    }
    let undocumented: Vec<&PublicItem> = census.undocumented().collect();
    println!("items without docs: {}", undocumented.len());
    for item in &undocumented {
        println!("  {}", item.path);
    }
    let total = census.items.len();
    ensure!(total <= options.max, "{PACKAGE} has {total} public items, above the cap of {}", options.max);
    ensure!(
        !options.require_docs || undocumented.is_empty(),
        "{PACKAGE}: {} public items without docs (listed above), and --require-docs",
        undocumented.len()
    );
    Ok(census)
}

/// The names of the workspace's library crates (`block_size_runner`, `ptx_stamp`…): their items
/// are ours where re-exported.
fn workspace_crates(repo: &Path, cargo: &str) -> Result<BTreeSet<String>> {
    let output = Command::new(cargo)
        .current_dir(repo)
        .args(["metadata", "--no-deps", "--offline", "--locked", "--format-version", "1"])
        .output()
        .context("running cargo metadata")?;
    ensure!(output.status.success(), "cargo metadata failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).context("cargo metadata: not JSON")?;
    Ok(metadata["packages"]
        .as_array()
        .context("cargo metadata: no packages")?
        .iter()
        .flat_map(|package| package["targets"].as_array().into_iter().flatten())
        .filter(|target| {
            target["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|kind| kind == "lib" || kind == "proc-macro"))
        })
        .filter_map(|target| target["name"].as_str().map(|name| name.replace('-', "_")))
        .collect())
}

/// An `Id` of the JSON (a number since format 35, a string before) as the `index` key it is.
fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::Number(number) => Some(number.to_string()),
        Value::String(text) => Some(text.clone()),
        _ => None,
    }
}

/// An item's kind and the object under it: `inner` is `{"struct": {...}}`.
fn kind_of(item: &Value) -> (&str, &Value) {
    match &item["inner"] {
        Value::Object(inner) => {
            inner.iter().next().map_or(("", &Value::Null), |(kind, value)| (kind.as_str(), value))
        }
        Value::String(kind) => (kind.as_str(), &Value::Null),
        _ => ("", &Value::Null),
    }
}

fn is_public(item: &Value) -> bool {
    item["visibility"] == "public"
}

fn has_docs(item: &Value) -> bool {
    item["docs"].as_str().is_some_and(|docs| !docs.trim().is_empty())
}

/// A step of the walk: an item reached by a path, or the items a glob re-export brings into
/// the module at a path.
enum Step {
    Item(String, Vec<String>),
    Glob(String, Vec<String>),
}

struct Walk<'a> {
    doc: &'a Value,
    index: &'a serde_json::Map<String, Value>,
    workspace: &'a BTreeSet<String>,
    queue: VecDeque<Step>,
    counted: BTreeSet<String>,
    modules: BTreeSet<String>,
    globs: BTreeSet<(String, Vec<String>)>,
    census: Census,
}

/// Walks `doc`, a rustdoc JSON document, from its root (see the module docs for the rule);
/// `workspace` names the crates whose items count as ours.
pub fn census(doc: &Value, workspace: &BTreeSet<String>) -> Result<Census> {
    let format_version = doc["format_version"].as_u64().context("no format_version: not rustdoc JSON")?;
    let (oldest, newest) = (FORMAT_VERSIONS.start(), FORMAT_VERSIONS.end());
    let supported = if oldest == newest { oldest.to_string() } else { format!("{oldest} to {newest}") };
    ensure!(
        FORMAT_VERSIONS.contains(&format_version),
        "rustdoc JSON format_version {format_version}, and this reads {supported} (FORMAT_VERSIONS in xtask/src/public_items.rs)"
    );
    let index = doc["index"].as_object().context("no index")?;
    let root = id_key(&doc["root"]).context("no root")?;
    let name =
        index.get(&root).and_then(|root| root["name"].as_str()).context("the root is not in the index")?;
    let mut walk = Walk {
        doc,
        index,
        workspace,
        queue: VecDeque::from([Step::Item(root, vec![name.to_string()])]),
        counted: BTreeSet::new(),
        modules: BTreeSet::new(),
        globs: BTreeSet::new(),
        census: Census { format_version, items: Vec::new(), modules: 0, notes: Vec::new() },
    };
    while let Some(step) = walk.queue.pop_front() {
        match step {
            Step::Item(id, path) => walk.item(&id, path),
            Step::Glob(id, path) => walk.glob(&id, path),
        }
    }
    walk.census.modules = walk.modules.len();
    Ok(walk.census)
}

impl Walk<'_> {
    /// Whether `item` is of this crate or of another crate of the workspace.
    fn is_ours(&self, item: &Value) -> bool {
        let crate_id = &item["crate_id"];
        crate_id == 0 || self.is_workspace_crate(crate_id)
    }

    fn is_workspace_crate(&self, crate_id: &Value) -> bool {
        id_key(crate_id)
            .and_then(|key| self.doc["external_crates"][key]["name"].as_str())
            .is_some_and(|name| self.workspace.contains(name))
    }

    /// An item the index does not hold (another crate's, not inlined): a workspace crate's is
    /// counted alone, by its kind in `paths`, with a note; any other crate's is not ours.
    fn foreign(&mut self, id: &str, path: Vec<String>, glob: bool) {
        let summary = &self.doc["paths"][id];
        if !self.is_workspace_crate(&summary["crate_id"]) || !self.counted.insert(id.to_string()) {
            return;
        }
        let origin =
            summary["path"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>();
        let kind = summary["kind"].as_str().unwrap_or("item");
        let shown = path.join("::");
        if glob || kind == "module" {
            self.census.notes.push(format!(
                "{shown}: re-exports the workspace module {}, whose items are not in this JSON: not counted",
                origin.join("::")
            ));
            return;
        }
        self.census.notes.push(format!(
            "{shown}: {kind} {} of the workspace, not inlined by rustdoc: counted alone, without its members or docs",
            origin.join("::")
        ));
        let kind_counted = Kind::of_item(kind).unwrap_or(Kind::Other);
        self.record(id, kind_counted, path, "", true);
    }

    fn record(&mut self, id: &str, kind: Kind, path: Vec<String>, other_kind: &str, documented: bool) {
        self.counted.insert(id.to_string());
        self.census.items.push(PublicItem {
            kind,
            path: path.join("::"),
            other_kind: if kind == Kind::Other { other_kind.to_string() } else { String::new() },
            documented,
        });
    }

    /// The children of the module `module` (a JSON item) as seen at `path`.
    fn children(&mut self, module: &Value, path: &[String]) {
        for child in module["items"].as_array().into_iter().flatten().filter_map(id_key) {
            let Some(item) = self.index.get(&child) else { continue };
            if !is_public(item) {
                continue;
            }
            match kind_of(item) {
                ("use" | "import", re_export) => {
                    let Some(target) = id_key(&re_export["id"]) else { continue };
                    let glob =
                        re_export["is_glob"].as_bool().or(re_export["glob"].as_bool()).unwrap_or(false);
                    if glob {
                        self.queue.push_back(Step::Glob(target, path.to_vec()));
                    } else {
                        let name = re_export["name"].as_str().unwrap_or_default();
                        self.queue.push_back(Step::Item(target, [path, &[name.to_string()]].concat()));
                    }
                }
                _ => {
                    let name = item["name"].as_str().unwrap_or_default();
                    self.queue.push_back(Step::Item(child, [path, &[name.to_string()]].concat()));
                }
            }
        }
    }

    fn glob(&mut self, id: &str, path: Vec<String>) {
        if !self.globs.insert((id.to_string(), path.clone())) {
            return;
        }
        let Some(target) = self.index.get(id) else { return self.foreign(id, path, true) };
        if !self.is_ours(target) {
            return;
        }
        match kind_of(target) {
            ("module", module) => self.children(module, &path),
            // `pub use Enum::*`: its variants, here.
            ("enum", enumeration) => self.variants(enumeration, &path),
            _ => {}
        }
    }

    fn item(&mut self, id: &str, path: Vec<String>) {
        let Some(item) = self.index.get(id) else { return self.foreign(id, path, false) };
        if !self.is_ours(item) {
            return;
        }
        let (kind, inner) = kind_of(item);
        if kind == "module" {
            if self.modules.insert(id.to_string()) {
                self.children(inner, &path);
            }
            return;
        }
        // A re-export of a re-export.
        if kind == "use" || kind == "import" {
            let Some(target) = id_key(&inner["id"]) else { return };
            let glob = inner["is_glob"].as_bool().or(inner["glob"].as_bool()).unwrap_or(false);
            self.queue.push_back(if glob { Step::Glob(target, path) } else { Step::Item(target, path) });
            return;
        }
        let Some(counted_kind) = Kind::of_item(kind) else { return };
        if self.counted.contains(id) {
            return;
        }
        self.record(id, counted_kind, path.clone(), kind, has_docs(item));
        match kind {
            "struct" => {
                let fields = match &inner["kind"] {
                    Value::Object(shape) if shape.contains_key("plain") => &shape["plain"]["fields"],
                    Value::Object(shape) if shape.contains_key("tuple") => &shape["tuple"],
                    _ => &Value::Null,
                };
                self.fields(fields, &path);
                self.inherent(inner, &path);
            }
            "union" => {
                self.fields(&inner["fields"], &path);
                self.inherent(inner, &path);
            }
            "enum" => {
                self.variants(inner, &path);
                self.inherent(inner, &path);
            }
            "trait" => self.members(&inner["items"], &path, false),
            _ => {}
        }
    }

    /// The public fields among `fields` (ids; a tuple struct's stripped ones are `null`).
    fn fields(&mut self, fields: &Value, path: &[String]) {
        for id in fields.as_array().into_iter().flatten().filter_map(id_key) {
            let Some(field) = self.index.get(&id) else { continue };
            if is_public(field) && !self.counted.contains(&id) {
                let name = field["name"].as_str().unwrap_or_default().to_string();
                self.record(&id, Kind::Field, [path, &[name]].concat(), "", has_docs(field));
            }
        }
    }

    fn variants(&mut self, enumeration: &Value, path: &[String]) {
        for id in enumeration["variants"].as_array().into_iter().flatten().filter_map(id_key) {
            let Some(variant) = self.index.get(&id) else { continue };
            if !self.counted.contains(&id) {
                let name = variant["name"].as_str().unwrap_or_default().to_string();
                self.record(&id, Kind::Variant, [path, &[name]].concat(), "", has_docs(variant));
            }
        }
    }

    /// The public members of the inherent impls of the type `inner` (its JSON object).
    fn inherent(&mut self, inner: &Value, path: &[String]) {
        for id in inner["impls"].as_array().into_iter().flatten().filter_map(id_key) {
            let Some(implementation) = self.index.get(&id) else { continue };
            let (_, block) = kind_of(implementation);
            let synthetic = block["is_synthetic"].as_bool().or(block["synthetic"].as_bool()).unwrap_or(false);
            if !block["trait"].is_null() || synthetic || !block["blanket_impl"].is_null() {
                continue;
            }
            self.members(&block["items"], path, true);
        }
    }

    /// The members `items` of an inherent impl (`only_public`: theirs are private without `pub`)
    /// or of a trait (all public).
    fn members(&mut self, items: &Value, path: &[String], only_public: bool) {
        for id in items.as_array().into_iter().flatten().filter_map(id_key) {
            let Some(member) = self.index.get(&id) else { continue };
            if (only_public && !is_public(member)) || self.counted.contains(&id) {
                continue;
            }
            let (kind, _) = kind_of(member);
            let name = member["name"].as_str().unwrap_or_default().to_string();
            self.record(&id, Kind::of_member(kind), [path, &[name]].concat(), kind, has_docs(member));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A crate `krate`: a struct `A`; a struct in a private module re-exported as `B` and again
    /// as `m::B2`, with a public and a private field, an inherent impl (a method, a constant, a
    /// private method), a `Display` impl, an auto-trait impl and a blanket impl; a private
    /// module's enum brought in by a glob; a trait; an undocumented function; a private function;
    /// a re-export of anyhow's `Error`; a re-export of a workspace crate's struct that rustdoc did
    /// not inline. Each item: id, name (`""`: none), visibility, whether documented, `inner`.
    #[rustfmt::skip]
    const ITEMS: &[(u32, &str, &str, bool, &str)] = &[
        (0, "krate", "public", true, r#"{"module": {"is_crate": true, "items": [1, 2, 3, 4, 6, 7, 8, 9, 30]}}"#),
        (1, "A", "public", true, r#"{"struct": {"kind": "unit", "impls": []}}"#),
        (2, "", "public", false, r#"{"use": {"name": "B", "id": 10, "is_glob": false}}"#),
        (3, "", "public", false, r#"{"use": {"name": "inner", "id": 20, "is_glob": true}}"#),
        (4, "m", "public", true, r#"{"module": {"is_crate": false, "items": [5]}}"#),
        (5, "", "public", false, r#"{"use": {"name": "B2", "id": 10, "is_glob": false}}"#),
        (6, "", "public", false, r#"{"use": {"name": "Error", "id": 99, "is_glob": false}}"#),
        (7, "f", "public", false, r#"{"function": {}}"#),
        (8, "", "public", false, r#"{"use": {"name": "Stamp", "id": 98, "is_glob": false}}"#),
        (9, "private", "crate", true, r#"{"function": {}}"#),
        (10, "Hidden", "public", true, r#"{"struct": {"kind": {"plain": {"fields": [11, 12]}}, "impls": [13, 16, 18, 19]}}"#),
        (11, "open", "public", true, r#"{"struct_field": {}}"#),
        (12, "closed", "crate", true, r#"{"struct_field": {}}"#),
        (13, "", "default", false, r#"{"impl": {"trait": null, "items": [14, 15, 17], "blanket_impl": null}}"#),
        (14, "new", "public", true, r#"{"function": {}}"#),
        (15, "LIMIT", "public", true, r#"{"assoc_const": {}}"#),
        (17, "helper", "crate", true, r#"{"function": {}}"#),
        (16, "", "default", false, r#"{"impl": {"trait": {"path": "Display", "id": 97}, "items": [21]}}"#),
        (21, "fmt", "default", false, r#"{"function": {}}"#),
        (18, "", "default", false, r#"{"impl": {"trait": {"path": "Send", "id": 96}, "items": [], "is_synthetic": true}}"#),
        (19, "", "default", false, r#"{"impl": {"trait": {"path": "Into", "id": 95}, "items": [22], "blanket_impl": {"generic": "T"}}}"#),
        (22, "into", "default", false, r#"{"function": {}}"#),
        (20, "inner", "crate", false, r#"{"module": {"is_crate": false, "items": [23]}}"#),
        (23, "E", "public", true, r#"{"enum": {"variants": [24, 25], "impls": []}}"#),
        (24, "One", "default", true, r#"{"variant": {"kind": "plain"}}"#),
        (25, "Two", "default", false, r#"{"variant": {"kind": {"tuple": [26]}}}"#),
        (26, "0", "default", false, r#"{"struct_field": {}}"#),
        (30, "T", "public", true, r#"{"trait": {"items": [31, 32], "implementations": []}}"#),
        (31, "method", "default", true, r#"{"function": {}}"#),
        (32, "Output", "default", true, r#"{"assoc_type": {}}"#),
    ];

    fn crate_json() -> Value {
        let index: serde_json::Map<String, Value> = ITEMS
            .iter()
            .map(|&(id, name, visibility, documented, inner)| {
                let inner: Value = serde_json::from_str(inner).unwrap();
                let item = json!({
                    "id": id,
                    "crate_id": 0,
                    "name": if name.is_empty() { Value::Null } else { name.into() },
                    "visibility": visibility,
                    "docs": if documented { "Documented.".into() } else { Value::Null },
                    "inner": inner,
                });
                (id.to_string(), item)
            })
            .collect();
        json!({
            "root": 0,
            "format_version": 57,
            "index": index,
            "paths": {
                "99": {"crate_id": 1, "path": ["anyhow", "Error"], "kind": "struct"},
                "98": {"crate_id": 2, "path": ["ptx_stamp", "Stamp"], "kind": "struct"},
            },
            "external_crates": {"1": {"name": "anyhow"}, "2": {"name": "ptx_stamp"}},
        })
    }

    fn workspace() -> BTreeSet<String> {
        ["krate", "ptx_stamp"].into_iter().map(String::from).collect()
    }

    #[test]
    fn counts_what_public_paths_reach_once_each() {
        let census = census(&crate_json(), &workspace()).unwrap();
        let found: Vec<(Kind, &str)> =
            census.items.iter().map(|item| (item.kind, item.path.as_str())).collect();
        assert_eq!(
            found,
            [
                (Kind::Struct, "krate::A"),
                (Kind::Struct, "krate::B"),
                (Kind::Field, "krate::B::open"),
                (Kind::Method, "krate::B::new"),
                (Kind::AssociatedConstant, "krate::B::LIMIT"),
                (Kind::Function, "krate::f"),
                (Kind::Struct, "krate::Stamp"),
                (Kind::Trait, "krate::T"),
                (Kind::Method, "krate::T::method"),
                (Kind::AssociatedType, "krate::T::Output"),
                (Kind::Enum, "krate::E"),
                (Kind::Variant, "krate::E::One"),
                (Kind::Variant, "krate::E::Two"),
            ]
        );
        assert_eq!(census.modules, 2);
        assert_eq!(census.notes.len(), 1, "{:?}", census.notes);
        assert!(census.notes[0].starts_with("krate::Stamp: struct ptx_stamp::Stamp of the workspace"));
        let undocumented: Vec<&str> = census.undocumented().map(|item| item.path.as_str()).collect();
        assert_eq!(undocumented, ["krate::f", "krate::E::Two"]);
        assert!(
            census.table("krate").contains("  total                    13\n"),
            "{}",
            census.table("krate")
        );
        assert!(census.table("krate").contains("  enum variants             2\n"));
    }

    #[test]
    fn a_crate_outside_the_workspace_is_not_ours() {
        let census = census(&crate_json(), &BTreeSet::from(["krate".to_string()])).unwrap();
        assert!(!census.items.iter().any(|item| item.path == "krate::Stamp" || item.path == "krate::Error"));
        assert!(census.notes.is_empty());
    }

    #[test]
    fn another_format_version_is_one_clear_error() {
        let mut doc = crate_json();
        doc["format_version"] = json!(58);
        let error = census(&doc, &workspace()).unwrap_err().to_string();
        assert_eq!(
            error,
            "rustdoc JSON format_version 58, and this reads 57 (FORMAT_VERSIONS in xtask/src/public_items.rs)"
        );
    }

    #[test]
    fn options_take_max_list_require_docs_a_face_and_a_target() {
        assert_eq!(
            Options::parse(&["--max", "480", "--list", "--require-docs", "--face", "docs/library.md"])
                .unwrap(),
            Options {
                list: true,
                max: 480,
                require_docs: true,
                face: Some("docs/library.md".into()),
                target_dir: None
            }
        );
        assert!(Options::parse(&["--face"]).is_err());
        assert_eq!(
            Options::parse(&["--target-dir", "target"]).unwrap().target_dir.as_deref(),
            Some("target")
        );
        assert!(Options::parse(&["--target-dir"]).is_err());
        assert!(Options::parse(&["--max"]).is_err());
        assert!(Options::parse(&["--max", "many"]).is_err());
        assert_eq!(Options::parse(&[]).unwrap().max, MAX_PUBLIC_ITEMS, "the cap unless told");
        assert!(Options::parse(&["--all"]).unwrap_err().to_string().starts_with("unknown option `--all`"));
    }
}
