/*!
The import graph of a library crate, read from its `src/` folder as text, and the checks
`tests/tests/layers.rs` holds it to: no import cycle among its files, none among its top-level
modules (the crate's layers), no import from a layer to one above it in a declared order, and
no import through the crate root's re-exports.

- A module is a file: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs` is the root `""`. Files
  named `tests.rs` or below a `tests/` folder are test code and left out; so is a binary's
  root (`main.rs`, `bin/`), which is another crate.
- An import is every `crate::`, `super::` and `self::` path of the file's code, wherever it is
  (`use` trees with their braces, renames, `self` and globs, re-exports, paths in expressions
  and types), after comments (doc comments too, so doc links do not count), string and
  character literals and `#[cfg(test)]` modules and `use`s are taken out.
- Each path leads to the longest module it names (`crate::a::b::f` to `a::b` where that file
  exists, else to `a`). A path to the file's own module or one of its ancestors is no edge.
  A path from a non-root file that ends in the root and names something there
  (`crate::Error`, where lib.rs re-exports `Error`, or `super::*` in a top-level module) hides
  where the item lives: it is reported as an import through the root. Paths to macros (`crate::name!`) are exempt, since
  `#[macro_export]` puts every such macro at the root.
*/

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One path in a file that leads to another module: where it is written and how.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Import {
    /// The file, relative to the `src/` folder, e.g. `cmd/sweep.rs`.
    pub file: String,
    /// 1-based line of the path's first segment.
    pub line: usize,
    /// The path as written, with a `use` tree's braces expanded: `crate::a::c::d`.
    pub written: String,
}

/// The modules of one crate's `src/` folder and the imports among them.
#[derive(Debug)]
pub struct ImportGraph {
    /// The folder as named to [`ImportGraph::read`], for messages (`runner/src`).
    src: String,
    /// Every module and its file relative to `src`.
    files: BTreeMap<String, String>,
    /// For each module, the modules it imports and the paths that do.
    edges: BTreeMap<String, BTreeMap<String, Vec<Import>>>,
    /// Paths from non-root modules through the root's re-exports.
    through_root: Vec<Import>,
}

/// What [`ImportGraph::check`] found; [`LayerCheck::problems`] says each finding, naming its
/// files and paths.
#[derive(Debug)]
pub struct LayerCheck {
    /// `src` as named to [`ImportGraph::read`].
    pub src: String,
    /// How many files (modules) the graph has, the root included.
    pub files: usize,
    /// The top-level modules.
    pub layers: Vec<String>,
    /// Each set of files that import each other in a cycle, with its description.
    pub file_cycles: Vec<Knot>,
    /// Each set of top-level modules that import each other in a cycle.
    pub layer_cycles: Vec<Knot>,
    /// With an order: each import from a layer to one above it (`from`, `to`, the path).
    pub upward: Vec<(String, String, Import)>,
    /// With an order: top-level modules the order leaves out, with their files.
    pub unordered: Vec<(String, Vec<String>)>,
    /// With an order: names in it that are no top-level module.
    pub stale: Vec<String>,
    /// Paths through the root's re-exports.
    pub through_root: Vec<Import>,
    /// Whether a layer order was checked (it decides what the count line says).
    pub ordered: bool,
}

/// A strongly connected set of modules (more than one): each imports each, through the others.
#[derive(Debug)]
pub struct Knot {
    /// Its members, sorted.
    pub members: Vec<String>,
    /// One cycle through its first member, e.g. `a -> b -> a`.
    pub cycle: String,
    /// Every import between two members, as `from -> to: file:line path`.
    pub imports: Vec<String>,
}

impl ImportGraph {
    /// Reads every `.rs` file below `root/src` and builds the graph; messages name files as
    /// `src/…` (name `src` relative to the repository root: `runner/src`).
    pub fn read(root: &Path, src: &str) -> Result<ImportGraph, String> {
        let folder = root.join(src);
        let mut sources = BTreeMap::new();
        read_tree(&folder, &folder, &mut sources)?;
        if !sources.contains_key("") {
            return Err(format!("{src}: no lib.rs"));
        }
        Ok(ImportGraph::from_sources(src, &sources))
    }

    /// The graph of `sources` (module to (file, text)).
    fn from_sources(src: &str, sources: &BTreeMap<String, (String, String)>) -> ImportGraph {
        let known: BTreeSet<&str> = sources.keys().map(String::as_str).collect();
        let mut edges: BTreeMap<String, BTreeMap<String, Vec<Import>>> = BTreeMap::new();
        let mut through_root = Vec::new();
        for (module, (file, text)) in sources {
            let here: Vec<String> =
                if module.is_empty() { Vec::new() } else { module.split("::").map(str::to_string).collect() };
            let targets = edges.entry(module.clone()).or_default();
            for path in paths(&without_test_code(&tokens(text)), &here) {
                let import = Import { file: file.clone(), line: path.line, written: path.written };
                let target = longest_module(&path.segments, &known);
                if target.is_empty() {
                    // A path that ends in the root from a module below it: through the root,
                    // unless it names nothing there (`use crate::{self}`) or a macro.
                    let names_something = !path.segments.is_empty() || import.written.ends_with("::*");
                    if !module.is_empty() && names_something && !path.macro_call {
                        through_root.push(import);
                    }
                    continue;
                }
                if target == module.as_str() || is_ancestor(target, module) {
                    continue;
                }
                targets.entry(target.to_string()).or_default().push(import);
            }
        }
        ImportGraph {
            src: src.to_string(),
            files: sources.iter().map(|(module, (file, _))| (module.clone(), file.clone())).collect(),
            edges,
            through_root,
        }
    }

    /// The modules, the root `""` first.
    pub fn modules(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The modules `module` imports, each with the paths that do.
    pub fn imports_of(&self, module: &str) -> Option<&BTreeMap<String, Vec<Import>>> {
        self.edges.get(module)
    }

    /// The graph among top-level modules: an edge wherever a file of one imports a file of
    /// another. The root is left out: it may import anything, and nothing imports it.
    fn layer_edges(&self) -> BTreeMap<String, BTreeMap<String, Vec<Import>>> {
        let mut layers: BTreeMap<String, BTreeMap<String, Vec<Import>>> = BTreeMap::new();
        for (module, targets) in self.edges.iter().filter(|(module, _)| !module.is_empty()) {
            let from = layers.entry(top(module).to_string()).or_default();
            for (target, imports) in targets.iter().filter(|(target, _)| top(target) != top(module)) {
                from.entry(top(target).to_string()).or_default().extend(imports.iter().cloned());
            }
        }
        layers
    }

    /// Checks the graph; with `order` (top-level module names from the bottom layer up), also
    /// that each imports only its own layer and those below, and that the order names every
    /// top-level module.
    pub fn check(&self, order: Option<&[&str]>) -> LayerCheck {
        let layer_edges = self.layer_edges();
        let mut check = LayerCheck {
            src: self.src.clone(),
            files: self.files.len(),
            layers: layer_edges.keys().cloned().collect(),
            file_cycles: knots(&self.edges),
            layer_cycles: knots(&layer_edges),
            upward: Vec::new(),
            unordered: Vec::new(),
            stale: Vec::new(),
            through_root: self.through_root.clone(),
            ordered: order.is_some(),
        };
        let Some(order) = order else { return check };
        let rank = |layer: &str| order.iter().position(|&name| name == layer);
        for (from, targets) in &layer_edges {
            let Some(from_rank) = rank(from) else {
                let files = self
                    .files
                    .iter()
                    .filter(|(module, _)| !module.is_empty() && top(module) == from)
                    .map(|(_, file)| file.clone())
                    .collect();
                check.unordered.push((from.clone(), files));
                continue;
            };
            for (to, imports) in targets {
                // An import of an unordered module is reported with that module.
                if rank(to).is_some_and(|to_rank| to_rank > from_rank) {
                    check
                        .upward
                        .extend(imports.iter().map(|import| (from.clone(), to.clone(), import.clone())));
                }
            }
        }
        check.stale = order
            .iter()
            .filter(|name| !layer_edges.contains_key(**name))
            .map(|name| name.to_string())
            .collect();
        check
    }
}

impl LayerCheck {
    /// `runner/src: 0 import cycles among 57 files, 0 among 7 layers, 0 upward imports, 0
    /// imports through the root` (without an order, no upward count).
    pub fn count_line(&self) -> String {
        let upward =
            if self.ordered { format!(", {} upward imports", self.upward.len()) } else { String::new() };
        format!(
            "{}: {} import cycles among {} files, {} among {} layers{upward}, {} imports through the root",
            self.src,
            self.file_cycles.len(),
            self.files,
            self.layer_cycles.len(),
            self.layers.len(),
            self.through_root.len(),
        )
    }

    /// Every finding, one line each (a cycle: a line, then a line per import in it), naming
    /// the file and the path; empty when the crate passes.
    pub fn problems(&self) -> Vec<String> {
        let src = &self.src;
        let mut lines = Vec::new();
        for (kind, knots) in [("files", &self.file_cycles), ("layers", &self.layer_cycles)] {
            for knot in knots {
                lines.push(format!(
                    "{src}: import cycle among {kind} {}: {}",
                    knot.members.join(", "),
                    knot.cycle
                ));
                lines.extend(knot.imports.iter().map(|import| format!("    {import}")));
            }
        }
        for (from, to, import) in &self.upward {
            lines.push(format!(
                "{src}/{}:{}: `{}` imports layer `{to}` from `{from}`, a layer below it",
                import.file, import.line, import.written
            ));
        }
        for (layer, files) in &self.unordered {
            lines.push(format!(
                "{src}: top-level module `{layer}` ({}) is in no layer of the order",
                files.iter().map(|file| format!("{src}/{file}")).collect::<Vec<_>>().join(", ")
            ));
        }
        for name in &self.stale {
            lines.push(format!("{src}: the layer order names `{name}`, which is no top-level module"));
        }
        for import in &self.through_root {
            lines.push(format!(
                "{src}/{}:{}: `{}` imports through the root: name the module the item lives in",
                import.file, import.line, import.written
            ));
        }
        lines
    }

    /// [`LayerCheck::count_line`], then [`LayerCheck::problems`].
    pub fn report(&self) -> String {
        let mut report = self.count_line();
        for line in self.problems() {
            report.push('\n');
            report.push_str(&line);
        }
        report
    }
}

/// Collects the `.rs` files below `dir` into `sources` (module to (file, text)), leaving out
/// test code and binary roots.
fn read_tree(src: &Path, dir: &Path, sources: &mut BTreeMap<String, (String, String)>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    let mut paths: Vec<_> = entries
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .map_err(|error| format!("{}: {error}", dir.display()))?;
    paths.sort();
    for path in paths {
        let relative = path.strip_prefix(src).expect("below src").to_string_lossy().replace('\\', "/");
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        // `is_dir`/`is_file` follow links: a module may be a link to a file shared with another crate.
        if path.is_dir() {
            if name != "tests" && relative != "bin" {
                read_tree(src, &path, sources)?;
            }
            continue;
        }
        let Some(stem) = relative.strip_suffix(".rs") else { continue };
        if name == "tests.rs" || relative == "main.rs" {
            continue;
        }
        let module = match stem {
            "lib" => String::new(),
            _ => stem.strip_suffix("/mod").unwrap_or(stem).replace('/', "::"),
        };
        let text = std::fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
        sources.insert(module, (relative, text));
    }
    Ok(())
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// Whether `ancestor` is a strict ancestor of `module` (the root is everyone's).
fn is_ancestor(ancestor: &str, module: &str) -> bool {
    ancestor.is_empty() && !module.is_empty()
        || module.strip_prefix(ancestor).is_some_and(|rest| rest.starts_with("::"))
}

/// The longest prefix of `segments` that is a module, or the root.
fn longest_module<'a>(segments: &[String], known: &BTreeSet<&'a str>) -> &'a str {
    (1..=segments.len())
        .rev()
        .find_map(|length| known.get(segments[..length].join("::").as_str()).copied())
        .unwrap_or("")
}

/// A token of Rust source with comments and literals already gone.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
    /// A string, character or number literal: nothing of it counts, but it separates.
    Literal,
}

/// The tokens of `text`, each with its 1-based line. Comments (nested block comments too) and
/// literals are skipped whole, so no brace, quote or path inside one is seen.
fn tokens(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    // Skips to just past the `"` that closes a string starting at `i` (past its opening
    // quote), `\` escaping the next character; counts its lines.
    let skip_string = |mut i: usize, line: &mut usize| {
        while i < chars.len() && chars[i] != '"' {
            if chars[i] == '\\' {
                i += 1;
            }
            if at(i) == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    // `r"…"`, `r#"…"#`…: past the closing quote and as many `#`; `i` is at the first `#` or `"`.
    let skip_raw_string = |mut i: usize, line: &mut usize| {
        let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
        i += hashes + 1;
        while i < chars.len() {
            if chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes
            {
                return i + 1 + hashes;
            }
            if chars[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i
    };
    // A character literal at `i` (`'x'`, `'\n'`, `'\u{7f}'`): the index past it; `None` for a
    // lifetime or label (`'a`).
    let skip_char = |i: usize| {
        if at(i + 1) == '\\' {
            let close = chars.get(i + 3..)?.iter().position(|&c| c == '\'' || c == '\n')?;
            (chars[i + 3 + close] == '\'').then_some(i + 4 + close)
        } else {
            (at(i + 1) != '\n' && at(i + 2) == '\'').then_some(i + 3)
        }
    };
    let is_raw_string_start = |i: usize| {
        let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
        at(i + hashes) == '"'
    };
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(i + 1, &mut line);
            out.push((Token::Literal, start_line));
        } else if c == '\'' {
            match skip_char(i) {
                Some(end) => {
                    i = end;
                    out.push((Token::Literal, start_line));
                }
                // A lifetime or a label, `'a`: nothing that counts.
                None => {
                    i += 1;
                    while at(i).is_alphanumeric() || at(i) == '_' {
                        i += 1;
                    }
                }
            }
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push((Token::Literal, start_line));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // String and character prefixes: `b"…"`, `c"…"`, `b'x'`, raw `r"…"`, `br#"…"#`, `cr"…"`.
            match (word.as_str(), at(i)) {
                ("b" | "c", '"') => {
                    i = skip_string(i + 1, &mut line);
                    out.push((Token::Literal, start_line));
                }
                ("b", '\'') if skip_char(i).is_some() => {
                    i = skip_char(i).unwrap_or(i);
                    out.push((Token::Literal, start_line));
                }
                ("r" | "br" | "cr", '"' | '#') if is_raw_string_start(i) => {
                    i = skip_raw_string(i, &mut line);
                    out.push((Token::Literal, start_line));
                }
                // A raw identifier, `r#type`: the identifier.
                ("r", '#') => {
                    let start = i + 1;
                    i = start;
                    while at(i).is_alphanumeric() || at(i) == '_' {
                        i += 1;
                    }
                    out.push((Token::Ident(chars[start..i].iter().collect()), start_line));
                }
                _ => out.push((Token::Ident(word), start_line)),
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Token::PathSep, start_line));
            i += 2;
        } else {
            out.push((Token::Punct(c), start_line));
            i += 1;
        }
    }
    out
}

fn is_ident(token: Option<&(Token, usize)>, name: &str) -> bool {
    matches!(token, Some((Token::Ident(word), _)) if word == name)
}

fn is_punct(token: Option<&(Token, usize)>, c: char) -> bool {
    matches!(token, Some((Token::Punct(p), _)) if *p == c)
}

/// The index just past the bracket that closes the one at `open` (`(`, `[` or `{`), or the end.
fn past_matching(tokens: &[(Token, usize)], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, (token, _)) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// `tokens` without the items marked `#[cfg(test)]` that hold test imports: `mod name { … }`
/// (to its matching brace, and no further), `mod name;` and `use …;`.
fn without_test_code(tokens: &[(Token, usize)]) -> Vec<(Token, usize)> {
    let mut kept = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let cfg_test = is_punct(tokens.get(i), '#')
            && is_punct(tokens.get(i + 1), '[')
            && is_ident(tokens.get(i + 2), "cfg")
            && is_punct(tokens.get(i + 3), '(')
            && is_ident(tokens.get(i + 4), "test")
            && is_punct(tokens.get(i + 5), ')')
            && is_punct(tokens.get(i + 6), ']');
        if !cfg_test {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // Past further attributes and a visibility, to the item's keyword.
        let mut item = i + 7;
        while is_punct(tokens.get(item), '#') && is_punct(tokens.get(item + 1), '[') {
            item = past_matching(tokens, item + 1);
        }
        if is_ident(tokens.get(item), "pub") {
            item += 1;
            if is_punct(tokens.get(item), '(') {
                item = past_matching(tokens, item);
            }
        }
        let end = if is_ident(tokens.get(item), "mod") && is_punct(tokens.get(item + 2), '{') {
            Some(past_matching(tokens, item + 2))
        } else if is_ident(tokens.get(item), "mod") && is_punct(tokens.get(item + 2), ';')
            || is_ident(tokens.get(item), "use")
        {
            (item..tokens.len()).find(|&j| is_punct(tokens.get(j), ';')).map(|j| j + 1)
        } else {
            None
        };
        match end {
            Some(end) => i = end,
            // Another test-only item (a `fn`, an `impl`): kept, attribute and all.
            None => {
                kept.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    kept
}

/// One path of a file, resolved against the crate root.
#[derive(Debug)]
struct WrittenPath {
    /// Its segments from the crate root, `super` and `self` resolved.
    segments: Vec<String>,
    written: String,
    line: usize,
    /// Followed by `!`: a macro.
    macro_call: bool,
}

/// Every `crate::`, `super::` and `self::` path in `tokens` of the module `here`, `use` trees
/// expanded into one path per leaf.
fn paths(tokens: &[(Token, usize)], here: &[String]) -> Vec<WrittenPath> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let Some((Token::Ident(word), line)) = tokens.get(i) else { continue };
        let starts_path = matches!(word.as_str(), "crate" | "super" | "self")
            && tokens.get(i + 1).is_some_and(|(token, _)| *token == Token::PathSep)
            && !(i > 0 && tokens[i - 1].0 == Token::PathSep);
        if !starts_path {
            continue;
        }
        let (prefix, written) = match word.as_str() {
            "crate" => (Vec::new(), "crate".to_string()),
            "super" => (here[..here.len().saturating_sub(1)].to_vec(), "super".to_string()),
            _ => (here.to_vec(), "self".to_string()),
        };
        use_tree(tokens, i + 2, prefix, written, *line, &mut found);
    }
    found
}

/// Parses the rest of a path or `use` tree from `i` (just past a `::`), with the segments so far
/// in `prefix`, pushing each leaf into `found`; returns the index past it.
fn use_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    mut prefix: Vec<String>,
    mut written: String,
    line: usize,
    found: &mut Vec<WrittenPath>,
) -> usize {
    let mut leaf = |prefix: Vec<String>, written: String, macro_call: bool| {
        found.push(WrittenPath { segments: prefix, written, line, macro_call });
    };
    loop {
        match tokens.get(i) {
            Some((Token::Ident(word), _)) => {
                match word.as_str() {
                    "super" => {
                        prefix.pop();
                    }
                    // `a::{self, …}`: `a` itself, shown as `a`.
                    "self" => {}
                    _ => prefix.push(word.clone()),
                }
                if word != "self" {
                    written.push_str("::");
                    written.push_str(word);
                }
                if tokens.get(i + 1).is_some_and(|(token, _)| *token == Token::PathSep) {
                    i += 2;
                    continue;
                }
                leaf(prefix, written, is_punct(tokens.get(i + 1), '!'));
                return i + 1;
            }
            Some((Token::Punct('*'), _)) => {
                leaf(prefix, written + "::*", false);
                return i + 1;
            }
            Some((Token::Punct('{'), _)) => {
                i += 1;
                loop {
                    if is_punct(tokens.get(i), '}') || i >= tokens.len() {
                        return i + 1;
                    }
                    let subtree_line = tokens[i].1;
                    i = use_tree(tokens, i, prefix.clone(), written.clone(), subtree_line, found);
                    // Past an `as name` to the `,` or `}` that ends this subtree.
                    while i < tokens.len() && !is_punct(tokens.get(i), ',') && !is_punct(tokens.get(i), '}') {
                        i += 1;
                    }
                    if is_punct(tokens.get(i), ',') {
                        i += 1;
                    }
                }
            }
            // `crate::a::B::<T>` and anything else: the path ends here.
            _ => {
                leaf(prefix, written, false);
                return i;
            }
        }
    }
}

/// The strongly connected sets of more than one module in `edges` (Tarjan's algorithm), each
/// with a cycle through its first member and the imports between its members.
fn knots(edges: &BTreeMap<String, BTreeMap<String, Vec<Import>>>) -> Vec<Knot> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, Vec<Import>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<&'a str>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, node: &'a str) {
            let number = self.index.len();
            self.index.insert(node, number);
            self.low.insert(node, number);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flat_map(|targets| targets.keys()) {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    self.low.insert(node, self.low[node].min(self.low[next]));
                } else if self.on_stack.contains(next) {
                    self.low.insert(node, self.low[node].min(self.index[next]));
                }
            }
            if self.low[node] == self.index[node] {
                let mut group = Vec::new();
                loop {
                    let member = self.stack.pop().expect("on the stack");
                    self.on_stack.remove(member);
                    group.push(member);
                    if member == node {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.groups.push(group);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for node in edges.keys() {
        if !tarjan.index.contains_key(node.as_str()) {
            tarjan.visit(node);
        }
    }
    let mut groups = tarjan.groups;
    groups.sort();
    let name = |module: &str| if module.is_empty() { "(root)".to_string() } else { module.to_string() };
    groups
        .into_iter()
        .map(|members| {
            let inside: BTreeSet<&str> = members.iter().copied().collect();
            let mut imports = Vec::new();
            for &from in &members {
                for (to, paths) in edges[from].iter().filter(|(to, _)| inside.contains(to.as_str())) {
                    imports.extend(paths.iter().map(|import| {
                        format!(
                            "{} -> {}: {}:{} `{}`",
                            name(from),
                            name(to),
                            import.file,
                            import.line,
                            import.written
                        )
                    }));
                }
            }
            Knot {
                cycle: shortest_cycle(edges, &inside, members[0]).join(" -> "),
                members: members.iter().map(|member| name(member)).collect(),
                imports,
            }
        })
        .collect()
}

/// The shortest cycle from `start` back to it within `inside` (breadth first), `start` at both ends.
fn shortest_cycle<'a>(
    edges: &'a BTreeMap<String, BTreeMap<String, Vec<Import>>>,
    inside: &BTreeSet<&'a str>,
    start: &'a str,
) -> Vec<&'a str> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in edges[node].keys().map(String::as_str).filter(|next| inside.contains(next)) {
            if next == start {
                let mut cycle = vec![node];
                while let Some(&previous) = came_from.get(cycle[cycle.len() - 1]) {
                    cycle.push(previous);
                }
                cycle.reverse();
                cycle.push(start);
                return cycle;
            }
            if !came_from.contains_key(next) {
                came_from.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    vec![start]
}
