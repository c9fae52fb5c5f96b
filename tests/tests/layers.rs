//! The library crates' layers: no import cycle among a crate's files or among its top-level
//! modules, no import from a layer to one above it, no import through the crate root's
//! re-exports ([`block_size_tests::imports`] says what counts as an import). Then the checker
//! itself, on small source trees written to a temporary folder.

use block_size_tests::imports::{ImportGraph, LayerCheck};
use block_size_tests::repo_root;

/// The library crates checked: their `src/` folder and their top-level modules from the bottom
/// layer up. A module may import its own layer and those below; the root (lib.rs) anything.
const CRATES: &[(&str, &[&str])] = &[
    ("runner/src", &["error", "files", "model", "measure", "kernel", "search", "results", "commands"]),
    ("builtin/src", &["frame", "ptx", "grayscale", "histogram", "mock", "requests"]),
];

/// Reads the crate at `src` (relative to the repository root), checks it against `order`
/// where given, and prints the count line.
fn layer_check(src: &str, order: Option<&[&str]>) -> LayerCheck {
    let check = ImportGraph::read(&repo_root(), src).unwrap_or_else(|error| panic!("{error}")).check(order);
    println!("{}", check.count_line());
    check
}

#[test]
fn library_crates_keep_their_layers() {
    for (src, order) in CRATES {
        let check = layer_check(src, Some(order));
        assert!(check.problems().is_empty(), "{}", check.report());
    }
}

/// A crate of `files` (path below `src/`, text) in a fresh temporary folder, read back.
fn tree(name: &str, files: &[(&str, &str)]) -> ImportGraph {
    let root = std::env::temp_dir().join(format!("block-size-layers-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in files {
        let path = root.join("src").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let graph = ImportGraph::read(&root, "src").unwrap_or_else(|error| panic!("{error}"));
    std::fs::remove_dir_all(&root).unwrap();
    graph
}

/// The modules `module` imports.
fn targets<'a>(graph: &'a ImportGraph, module: &str) -> Vec<&'a str> {
    graph
        .imports_of(module)
        .unwrap_or_else(|| panic!("no module {module}"))
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn a_cycle_of_two_files_names_both_files_and_paths() {
    let graph = tree(
        "two",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A;\n"),
            ("b.rs", "pub struct B;\n\nuse crate::a::A;\n"),
        ],
    );
    let check = graph.check(None);
    assert_eq!(
        check.count_line(),
        "src: 1 import cycles among 3 files, 1 among 2 layers, 0 imports through the root"
    );
    assert_eq!(check.file_cycles[0].members, ["a", "b"]);
    assert_eq!(check.file_cycles[0].cycle, "a -> b -> a");
    let problems = check.problems().join("\n");
    assert!(problems.contains("src: import cycle among files a, b: a -> b -> a"), "{problems}");
    assert!(problems.contains("a -> b: a.rs:1 `crate::b::B`"), "{problems}");
    assert!(problems.contains("b -> a: b.rs:3 `crate::a::A`"), "{problems}");
    assert!(problems.contains("src: import cycle among layers a, b"), "{problems}");
}

#[test]
fn a_cycle_of_three_through_super_is_among_files_not_layers() {
    let graph = tree(
        "three",
        &[
            ("lib.rs", "mod x;\n"),
            ("x/mod.rs", "mod p;\nmod q;\nmod r;\n"),
            ("x/p.rs", "use super::q::Q;\npub struct P;\n"),
            ("x/q.rs", "pub struct Q(super::r::R);\n"),
            ("x/r.rs", "use super::{p::P, super::x::q};\npub struct R;\n"),
        ],
    );
    assert_eq!(targets(&graph, "x::q"), ["x::r"]);
    // `super::super::x::q` from x::r is x::q.
    assert_eq!(targets(&graph, "x::r"), ["x::p", "x::q"]);
    let check = graph.check(None);
    assert_eq!(check.file_cycles.len(), 1);
    assert_eq!(check.file_cycles[0].members, ["x::p", "x::q", "x::r"]);
    assert_eq!(check.file_cycles[0].cycle, "x::p -> x::q -> x::r -> x::p");
    assert!(check.layer_cycles.is_empty());
}

#[test]
fn an_upward_import_and_an_unordered_module_fail_the_order() {
    let graph = tree(
        "upward",
        &[
            ("lib.rs", "mod low;\nmod high;\nmod extra;\nuse crate::high::H;\n"),
            ("low.rs", "pub struct L;\npub fn f() {\n    let _ = crate::high::H;\n}\nuse crate::high::H;\n"),
            ("high.rs", "pub struct H;\n"),
            ("extra.rs", "pub struct E(crate::low::L);\n"),
        ],
    );
    let check = graph.check(Some(&["low", "high", "gone"]));
    let problems = check.problems();
    assert_eq!(
        problems,
        [
            "src/low.rs:3: `crate::high::H` imports layer `high` from `low`, a layer below it",
            "src/low.rs:5: `crate::high::H` imports layer `high` from `low`, a layer below it",
            "src: top-level module `extra` (src/extra.rs) is in no layer of the order",
            "src: the layer order names `gone`, which is no top-level module",
        ]
    );
    assert_eq!(
        check.count_line(),
        "src: 0 import cycles among 4 files, 0 among 3 layers, 2 upward imports, 0 imports through the root"
    );
    // Turned over, the order holds: the root imports anything, high nothing.
    assert!(graph.check(Some(&["high", "low", "extra"])).problems().is_empty());
}

#[test]
fn paths_in_expressions_and_types_are_imports() {
    let graph = tree(
        "expressions",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\n"),
            (
                "a.rs",
                "pub fn f(x: &crate::d::D) -> u32 {\n    crate::b::g() + crate::c::C::<u8>::new().0\n}\n\
                 impl crate::e::Trait for u8 {}\n",
            ),
            ("b.rs", ""),
            ("c.rs", ""),
            ("d.rs", ""),
            ("e.rs", ""),
        ],
    );
    assert_eq!(targets(&graph, "a"), ["b", "c", "d", "e"]);
}

#[test]
fn comments_doc_links_and_literals_are_not_imports() {
    let graph = tree(
        "comments",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\nmod f;\n"),
            (
                "a.rs",
                "//! Inner docs: [`crate::b::B`].\n\
                 /// See [`crate::b::B`] and [`super::c::C`].\n\
                 /* a block /* nested crate::d::D */ crate::d::D */\n\
                 /** crate::d::D */\n\
                 pub fn f() -> &'static str {\n\
                 \x20   let _ = ('\"', '\\'', b'\"');\n\
                 \x20   let _ = r#\"crate::e::E \"# ;\n\
                 \x20   \"use crate::e::E; \\\" crate::e::E\"\n\
                 }\n\
                 pub fn after<'a>(_: &'a crate::f::F) {}\n",
            ),
            ("b.rs", ""),
            ("c.rs", ""),
            ("d.rs", ""),
            ("e.rs", ""),
            ("f.rs", ""),
        ],
    );
    assert_eq!(targets(&graph, "a"), ["f"]);
}

#[test]
fn code_after_a_cfg_test_module_still_counts() {
    let graph = tree(
        "cfg-test",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
            (
                "a.rs",
                "pub fn before() {}\n\
                 #[cfg(test)]\n\
                 mod tests {\n\
                 \x20   use crate::b::B;\n\
                 \x20   #[test]\n\
                 \x20   fn t() { let _ = ('}', \"}}\"); if true { crate::b::f() } }\n\
                 }\n\
                 #[cfg(test)]\n\
                 use crate::d::D;\n\
                 pub fn after() { crate::c::g() }\n",
            ),
            ("b.rs", ""),
            ("c.rs", ""),
            ("d.rs", ""),
        ],
    );
    assert_eq!(targets(&graph, "a"), ["c"]);
}

#[test]
fn brace_groups_renames_globs_and_re_exports_are_imports() {
    let graph = tree(
        "braces",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\nmod f;\nmod g;\n"),
            (
                "a.rs",
                "use crate::{\n    b::{self, inner::{B1, B2}},\n    c::C as Renamed,\n    d::*,\n    e,\n};\n\
                 pub(crate) use crate::f::F;\npub use self::super::g::G;\n",
            ),
            ("b.rs", ""),
            ("c.rs", ""),
            ("d.rs", ""),
            ("e.rs", ""),
            ("f.rs", ""),
            ("g.rs", ""),
        ],
    );
    assert_eq!(targets(&graph, "a"), ["b", "c", "d", "e", "f", "g"]);
    let written: Vec<&str> =
        graph.imports_of("a").unwrap().values().flatten().map(|import| import.written.as_str()).collect();
    assert_eq!(
        written,
        [
            "crate::b",
            "crate::b::inner::B1",
            "crate::b::inner::B2",
            "crate::c::C",
            "crate::d::*",
            "crate::e",
            "crate::f::F",
            "self::super::g::G",
        ]
    );
}

#[test]
fn longest_module_wins_and_ancestors_are_no_edge() {
    let graph = tree(
        "longest",
        &[
            ("lib.rs", "mod x;\nmod y;\n"),
            ("x/mod.rs", "mod deep;\nuse crate::y::Item;\nuse self::deep::D;\n"),
            (
                "x/deep.rs",
                "use super::Up;\nuse crate::x::Up2;\nuse crate::x::deep::Own;\nuse crate::y::z::Z;\n",
            ),
            ("y.rs", ""),
        ],
    );
    assert_eq!(targets(&graph, "x"), ["x::deep", "y"]);
    // `crate::y::z` is no file: `y`; `super` and `crate::x` are x::deep's parent, no edge.
    assert_eq!(targets(&graph, "x::deep"), ["y"]);
}

#[test]
fn an_import_through_the_root_re_exports_is_an_error() {
    let graph = tree(
        "root",
        &[
            (
                "lib.rs",
                "mod a;\nmod b;\npub use crate::b::Thing;\npub mod results { pub use crate::b::Row; }\n\
                 #[macro_export]\nmacro_rules! shout { () => {} }\n",
            ),
            (
                "a.rs",
                "use crate::Thing;\nuse crate::b::Thing as Direct;\npub fn f() { crate::shout!(); }\n\
                 pub fn g(_: super::Thing, _: crate::results::Row) {}\nuse super::*;\n",
            ),
            ("b.rs", "pub struct Thing;\npub struct Row;\n"),
        ],
    );
    let check = graph.check(Some(&["b", "a"]));
    assert_eq!(
        check.problems(),
        [
            "src/a.rs:1: `crate::Thing` imports through the root: name the module the item lives in",
            "src/a.rs:4: `super::Thing` imports through the root: name the module the item lives in",
            "src/a.rs:4: `crate::results::Row` imports through the root: name the module the item lives in",
            "src/a.rs:5: `super::*` imports through the root: name the module the item lives in",
        ]
    );
    assert_eq!(targets(&graph, "a"), ["b"]);
}

#[test]
fn test_files_are_left_out() {
    let graph = tree(
        "test-files",
        &[
            ("lib.rs", "mod a;\n#[cfg(test)]\nmod tests;\n"),
            ("a.rs", "#[cfg(test)]\nmod tests;\n"),
            ("a/tests.rs", "use crate::tests::T;\n"),
            ("tests/mod.rs", "use crate::a::A;\n"),
            ("tests/more.rs", "use crate::a::A;\n"),
        ],
    );
    assert_eq!(graph.modules().collect::<Vec<_>>(), ["", "a"]);
}

#[test]
fn a_crate_that_keeps_its_layers_passes_and_says_its_counts() {
    let graph = tree(
        "clean",
        &[
            ("lib.rs", "mod error;\nmod model;\nmod commands;\npub use crate::error::Error;\n"),
            ("error.rs", "pub struct Error;\n"),
            ("model/mod.rs", "mod shape;\nuse crate::error::Error;\npub use shape::Shape;\n"),
            ("model/shape.rs", "pub struct Shape(crate::error::Error);\n"),
            ("commands.rs", "use crate::model::Shape;\nuse crate::error::Error;\n"),
        ],
    );
    let check = graph.check(Some(&["error", "model", "commands"]));
    assert!(check.problems().is_empty(), "{}", check.report());
    assert_eq!(
        check.count_line(),
        "src: 0 import cycles among 5 files, 0 among 3 layers, 0 upward imports, 0 imports through the root"
    );
}
