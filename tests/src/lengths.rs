/*!
How long a crate's functions are: every function and method of its non-test code (no
`#[cfg(test)]` item or module, no `#[test]`), read with `syn`, with its lines from the `fn` line
(its doc comment and attributes not counted) to its closing brace.
*/

use proc_macro2::Span;
use std::path::Path;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// One function: its file (below the crate's folder), its name (`Type::method` for a method of
/// an `impl`), and its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionLength {
    pub file: String,
    pub name: String,
    pub lines: usize,
}

/// Every non-test function below `src` (a folder below `root`), longest first, then by file and
/// name.
pub fn function_lengths(root: &Path, src: &str) -> Result<Vec<FunctionLength>, String> {
    let mut found = Vec::new();
    let base = root.join(src);
    let mut files = Vec::new();
    collect(&base, &mut files).map_err(|error| format!("{}: {error}", base.display()))?;
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
        let file = path.strip_prefix(&base).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        found.extend(lengths_in(&file, &text)?);
    }
    found.sort_by(|a, b| b.lines.cmp(&a.lines).then_with(|| (&a.file, &a.name).cmp(&(&b.file, &b.name))));
    Ok(found)
}

/// The non-test functions of one file's `text`, `file` its name in the answer.
pub fn lengths_in(file: &str, text: &str) -> Result<Vec<FunctionLength>, String> {
    let syntax = syn::parse_file(text).map_err(|error| format!("{file}: {error}"))?;
    let mut visitor = Lengths { file, owner: None, found: Vec::new() };
    visitor.visit_file(&syntax);
    Ok(visitor.found)
}

/// The `.rs` files below `folder`, those of a `tests` folder left out (test code).
fn collect(folder: &Path, files: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "tests") {
                collect(&path, files)?;
            }
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

struct Lengths<'a> {
    file: &'a str,
    /// The type of the `impl` being read, for its methods' names.
    owner: Option<String>,
    found: Vec<FunctionLength>,
}

/// Whether `attributes` mark test code: `#[cfg(test)]` (or a `cfg` naming `test`) or `#[test]`.
fn is_test(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        let path = attribute.path();
        path.is_ident("test")
            || (path.is_ident("cfg")
                && attribute.meta.require_list().is_ok_and(|list| {
                    list.tokens.clone().into_iter().any(|token| token.to_string() == "test")
                }))
    })
}

impl Lengths<'_> {
    fn record(&mut self, name: String, from: Span, to: Span) {
        let lines = to.end().line + 1 - from.start().line;
        self.found.push(FunctionLength { file: self.file.to_string(), name, lines });
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if !is_test(&module.attrs) {
            visit::visit_item_mod(self, module);
        }
    }

    fn visit_item_fn(&mut self, function: &'ast syn::ItemFn) {
        if is_test(&function.attrs) {
            return;
        }
        self.record(function.sig.ident.to_string(), function.sig.fn_token.span, function.block.span());
        visit::visit_item_fn(self, function);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if is_test(&item.attrs) {
            return;
        }
        let owner = match &*item.self_ty {
            syn::Type::Path(path) => path.path.segments.last().map(|segment| segment.ident.to_string()),
            _ => None,
        };
        let outer = std::mem::replace(&mut self.owner, owner);
        visit::visit_item_impl(self, item);
        self.owner = outer;
    }

    fn visit_impl_item_fn(&mut self, method: &'ast syn::ImplItemFn) {
        if is_test(&method.attrs) {
            return;
        }
        let name = match &self.owner {
            Some(owner) => format!("{owner}::{}", method.sig.ident),
            None => method.sig.ident.to_string(),
        };
        self.record(name, method.sig.fn_token.span, method.block.span());
        visit::visit_impl_item_fn(self, method);
    }

    fn visit_trait_item_fn(&mut self, method: &'ast syn::TraitItemFn) {
        if let Some(block) = &method.default
            && !is_test(&method.attrs)
        {
            self.record(method.sig.ident.to_string(), method.sig.fn_token.span, block.span());
        }
        visit::visit_trait_item_fn(self, method);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_the_fn_line_to_the_closing_brace_and_leaves_test_code_out() {
        let text = "/// Docs.\n#[inline]\nfn two() {\n    let x = '{';\n    let y = \"}}\";\n}\n\
                    struct S;\nimpl S {\n    pub fn method(&self) -> u32 {\n        1\n    }\n}\n\
                    #[cfg(test)]\nmod tests {\n    fn helper() {}\n}\n#[test]\nfn a_test() {}\n";
        let found = lengths_in("a.rs", text).unwrap();
        let named: Vec<(&str, usize)> = found.iter().map(|f| (f.name.as_str(), f.lines)).collect();
        assert_eq!(named, [("two", 4), ("S::method", 3)]);
    }
}
