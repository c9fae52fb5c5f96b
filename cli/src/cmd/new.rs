/*!
`block-size new PATH [--name NAME] [--cuda]`: writes a project of your own at PATH, no GPU needed.

The project sweeps the block size of its kernel with this repository's library: a cuda_builder
crate with one example kernel (`kernels/`, a 1-D stencil through dynamic shared memory, with
the unaligned barrier), its committed PTX and stamp (`ptx/`, so the host crate builds without
LLVM) and `scripts/build-ptx`, which rebuilds them (`scripts/setup-ptx` sets up what that
needs, LLVM 7 included, once a machine), and the host crate (`src/`, `tests/`) depending on
block-size's `runner/` from a git repository at a pinned revision (`--runner-git
URL`; by default this clone's `origin` at the clone's commit, where `origin` is a network URL
holding that commit) or else by the clone's absolute path: a program in two binaries
as `block-size` is, a launcher that links no driver (`src/main.rs`) over a worker that does
(`src/bin/NAME-cuda.rs`), with the sweep and `tail`. With `--cuda`, also the example kernel's
CUDA C++ twin (`cuda/stencil3.cu`), its committed nvcc PTX and stamp, `scripts/build-cuda-twin`,
which rebuilds them, and a `compare` subcommand, so that the project can compare Rust against
CUDA C++. The files are the templates under `cli/templates/new/`, embedded here, with the
crate's name and those paths filled in and the lines that are `--cuda`'s alone kept or left
out (between `//@ if --cuda` and `//@ end` lines).
*/

use block_size_runner::{Error, exit};
use clap::Args;
use std::path::{Component, Path, PathBuf};

// The options of `block-size new`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Writes a project of your own at PATH: a Rust kernel crate (cuda_builder; its PTX built) and a host crate that sweeps its block size; no GPU needed"
)]
#[cfg_attr(doc, doc = "The options of `block-size new`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct NewCommand {
    /// The project's folder: one that does not exist yet, or an empty one
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// The host crate's name [default: PATH's last component, made a crate name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// The block-size repository whose runner/ the project depends on [default: the
    /// one this program was built from]
    #[arg(long, value_name = "DIR")]
    pub runner_path: Option<PathBuf>,

    /// Depend on block-size's runner/ from this git repository (your fork or the
    /// published one), so that the project builds on any machine: `git = URL, rev = REV` in its
    /// Cargo.toml [default: the clone's origin where it is a network URL that holds the clone's
    /// commit, else (and with --runner-path) the folder by path]
    #[arg(long, value_name = "URL")]
    pub runner_git: Option<String>,

    /// With --runner-git: the commit, tag or branch to pin [default: the commit the block-size
    /// clone is at]
    #[arg(long, value_name = "REV", requires = "runner_git")]
    pub runner_rev: Option<String>,

    /// Also write the example kernel's CUDA C++ twin (cuda/stencil3.cu), its nvcc PTX and stamp
    /// (ptx/stencil3-nvcc.*) and scripts/build-cuda-twin, to compare Rust against CUDA C++
    #[arg(long)]
    pub cuda: bool,
}

/// A validated `block-size new`: where, what name, and which repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRequest {
    /// The project's folder.
    pub path: PathBuf,
    /// The host crate's name, a valid crate name.
    pub name: String,
    /// The block-size repository's root, holding `runner/` and `cli/`.
    pub repository: PathBuf,
    /// Whether to write the example kernel's CUDA C++ twin, its PTX and its script too.
    pub cuda: bool,
    /// Where the project's dependency on runner/ comes from: a git repository and
    /// the revision pinned (`--runner-git`), or `None` for the repository's folder.
    pub git: Option<(String, Option<String>)>,
}

/// The repository this program was built from: the CLI crate's parent folder.
pub fn this_repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ has a parent folder").to_path_buf()
}

impl NewCommand {
    /// The request, or why the name is refused (one line).
    pub fn request(&self) -> Result<NewRequest, String> {
        let name = match &self.name {
            Some(name) => {
                check_crate_name(name)
                    .map_err(|why| format!("--name: `{name}` is not a valid crate name: {why}"))?;
                name.clone()
            }
            None => default_name(&self.path)?,
        };
        let repository = self.runner_path.clone().unwrap_or_else(this_repository);
        for (option, value) in [("--runner-git", &self.runner_git), ("--runner-rev", &self.runner_rev)] {
            if let Some(value) = value
                && (value.is_empty() || value.chars().any(|c| c.is_control() || c == '"' || c == '\\'))
            {
                return Err(format!(
                    "{option} {value:?} is not a git URL or revision: one line, no quote or backslash"
                ));
            }
        }
        // Neither option: the clone's own origin where a project elsewhere can fetch the clone's
        // commit from it, so that the project travels by default; else the clone's folder.
        let git = match (&self.runner_git, &self.runner_path) {
            (Some(url), _) => Some((url.clone(), self.runner_rev.clone())),
            (None, None) => travelling_origin(&repository).map(|url| (url, None)),
            (None, Some(_)) => None,
        };
        Ok(NewRequest { path: self.path.clone(), name, repository, cuda: self.cuda, git })
    }
}

/// PATH's last component (of PATH resolved, where it exists) made a crate name: lower case,
/// every run of characters other than ASCII letters, digits and `_` made one `-`, no `-` at
/// either end, `_` before a leading digit.
fn default_name(path: &Path) -> Result<String, String> {
    let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let Some(Component::Normal(last)) = resolved.components().next_back() else {
        return Err(format!("{} has no last component to name the crate after; give --name", path.display()));
    };
    let last = last.to_string_lossy();
    let mut name = String::new();
    for c in last.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let mut name = name.trim_end_matches('-').to_string();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    check_crate_name(&name).map(|()| name.clone()).map_err(|why| {
        format!("`{last}` (PATH's last component) makes no valid crate name ({why}); give --name")
    })
}

/// Rust's keywords: a crate named after one could not be named in a `use`.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof",
    "unsized", "virtual", "yield",
];

/// Names the project cannot take: the standard library's crates, cargo's build folders (the
/// program is a binary of that name) and the crates the project itself depends on.
const TAKEN: &[&str] = &[
    "std",
    "core",
    "alloc",
    "proc_macro",
    "test",
    "deps",
    "examples",
    "build",
    "incremental",
    "block_size",
    "block_size_runner",
    "block_size_cli",
    "clap",
    "anyhow",
];

/// Whether `name` is a crate name the project can take: 1 to 64 characters of lower-case ASCII
/// letters, digits, `-` and `_`, not starting with a digit or `-`, neither a keyword nor a name
/// taken (the standard crates, cargo's folder names, the project's own dependencies).
pub fn check_crate_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty".into());
    }
    if name.len() > 64 {
        return Err("it is longer than 64 characters".into());
    }
    if let Some(c) =
        name.chars().find(|&c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'))
    {
        return Err(format!("`{c}` is not allowed: use lower-case ASCII letters, digits, `-` and `_`"));
    }
    if name.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return Err("it must start with a letter or `_`".into());
    }
    let snake = name.replace('-', "_");
    if KEYWORDS.contains(&snake.as_str()) {
        return Err("it is a Rust keyword".into());
    }
    if TAKEN.contains(&snake.as_str()) {
        return Err(
            "the project uses that name already (a standard crate, a cargo folder or a dependency)".into()
        );
    }
    Ok(())
}

/// A file of the project: its template's file under `cli/templates/new/`, its path in the
/// project, its template's text, and whether the name and paths are filled in (the kernels and
/// their PTX depend on no name).
struct Template {
    // Read by the test that every file of the templates is written.
    #[cfg_attr(not(test), allow(dead_code))]
    template: &'static str,
    path: &'static str,
    text: &'static str,
    filled: bool,
}

macro_rules! templates {
    ($($template:literal => $path:literal, $filled:literal;)*) => {
        &[$(Template {
            template: $template,
            path: $path,
            text: include_str!(concat!("../../templates/new/", $template)),
            filled: $filled,
        }),*]
    };
}

/// The project's files, from `cli/templates/new/`.
const TEMPLATES: &[Template] = templates! {
    "Cargo.toml" => "Cargo.toml", true;
    "rust-toolchain.toml" => "rust-toolchain.toml", false;
    "rustfmt.toml" => "rustfmt.toml", false;
    "README.md" => "README.md", true;
    "gitignore" => ".gitignore", false;
    "cargo-config.toml" => ".cargo/config.toml", false;
    "src/lib.rs" => "src/lib.rs", true;
    "src/main.rs" => "src/main.rs", true;
    "src/bin/scaffold-name-cuda.rs" => "src/bin/scaffold-name-cuda.rs", true;
    "tests/stencil3.rs" => "tests/stencil3.rs", true;
    "scripts/build-ptx" => "scripts/build-ptx", false;
    "scripts/setup-libcuda" => "scripts/setup-libcuda", false;
    "scripts/setup-ptx" => "scripts/setup-ptx", false;
    "ptx/kernels.ptx" => "ptx/kernels.ptx", false;
    "ptx/kernels.stamp.toml" => "ptx/kernels.stamp.toml", false;
    "kernels/Cargo.toml" => "kernels/Cargo.toml", false;
    "kernels/Cargo.lock" => "kernels/Cargo.lock", false;
    "kernels/rust-toolchain.toml" => "kernels/rust-toolchain.toml", false;
    "kernels/src/lib.rs" => "kernels/src/lib.rs", false;
    "kernels/src/barrier.rs" => "kernels/src/barrier.rs", false;
    "kernels/builder/Cargo.toml" => "kernels/builder/Cargo.toml", false;
    "kernels/builder/build.rs" => "kernels/builder/build.rs", false;
    "kernels/builder/src/main.rs" => "kernels/builder/src/main.rs", false;
};

/// The files `--cuda` adds: the example kernel's CUDA C++ twin, its nvcc PTX and stamp (built by
/// `cargo xtask ptx nvcc` here, which also checks that the script writes the same bytes), and
/// the script that rebuilds them in the project (it names no path of this machine: it looks
/// for nvcc where the machine it runs on keeps one).
const CUDA_TEMPLATES: &[Template] = templates! {
    "cuda/stencil3.cu" => "cuda/stencil3.cu", false;
    "ptx/stencil3-nvcc.ptx" => "ptx/stencil3-nvcc.ptx", false;
    "ptx/stencil3-nvcc.stamp.toml" => "ptx/stencil3-nvcc.stamp.toml", false;
    "scripts/build-cuda-twin" => "scripts/build-cuda-twin", false;
};

/// This repository's `scripts/setup-cuda-wheels`, written into every project as it is: the
/// project's `scripts/setup-ptx` and `scripts/build-ptx` get libNVVM 11.8 from PyPI through it, with no path of this
/// machine (one script for both: a fix here is the project's at its next `new`).
const SETUP_CUDA_WHEELS: &str = include_str!("../../../scripts/setup-cuda-wheels");

/// The section `--cuda` appends to `README.md`: the twin and how to rebuild its PTX.
const README_CUDA: &str = include_str!("../../templates/new/README-cuda.md");

/// The files written executable (`rwxr-xr-x`).
const EXECUTABLE: &[&str] =
    &["scripts/build-cuda-twin", "scripts/build-ptx", "scripts/setup-libcuda", "scripts/setup-ptx"];

/// The lines that open and close what only `--cuda` writes of a template (Rust comments, so
/// that a template reads as the Rust it becomes): the `compare` subcommand, the twin's module
/// and its emulation.
const CUDA_ONLY: &str = "//@ if --cuda";
const CUDA_ONLY_END: &str = "//@ end";

/// `text` with the lines between [`CUDA_ONLY`] and [`CUDA_ONLY_END`] kept with `cuda`, left out
/// without, and the marker lines themselves never written (each alone on its line, indented or
/// not).
fn select_lines(text: &str, cuda: bool) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        match line.trim() {
            CUDA_ONLY => inside = true,
            CUDA_ONLY_END => inside = false,
            _ if inside && !cuda => {}
            _ => kept.push_str(line),
        }
    }
    kept
}

/// The placeholders of the templates: the package name (also in the worker's file name), the
/// same as a Rust identifier, and the repository's root (in `Cargo.toml` and `scripts/build-ptx`).
const NAME: &str = "scaffold-name";
const IDENT: &str = "scaffold_name";
const REPOSITORY: &str = "/path/to/block-size";

/// What `block-size new` did: the lines for standard output, and a note for standard error
/// where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    /// What was written, and what to do next.
    pub stdout: String,
    /// A line saying how to get a link-time `libcuda.so` where none was found.
    pub stderr: String,
}

/// The `libcuda.so` the project's `.cuda/lib64/libcuda.so` links to, found where the
/// project's `scripts/setup-libcuda` looks, in its order: the driver's own, a CUDA toolkit's
/// stub (`$CUDA_PATH`, `/usr/local/cuda`), this repository's (`scripts/setup`'s, `.cuda`); `None`
/// where the machine has none.
fn find_libcuda(repository: &Path) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = ["libcuda.so", "libcuda.so.1"]
        .iter()
        .map(|file| Path::new("/usr/lib/x86_64-linux-gnu").join(file))
        .collect();
    if let Some(base) = std::env::var_os("CUDA_PATH").map(PathBuf::from) {
        candidates.extend([base.join("lib64/stubs/libcuda.so"), base.join("lib64/libcuda.so")]);
    }
    candidates.extend([
        PathBuf::from("/usr/local/cuda/lib64/stubs/libcuda.so"),
        PathBuf::from("/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so"),
        repository.join(".cuda/lib64/libcuda.so"),
    ]);
    candidates.into_iter().find(|file| file.is_file()).and_then(|file| file.canonicalize().ok())
}

/// The commit `repository` is at, where it is a git checkout git can read.
fn head_commit(repository: &Path) -> Option<String> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(repository)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    let commit = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (output.status.success() && commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(commit)
}

/// The URL of `repository`'s `origin` where a project on another machine can build from it: a
/// URL of a network (`https://`, `ssh://`, `git@host:path`, not a folder or a `file://` of this
/// machine) whose remote-tracking branches hold the commit `repository` is at (so a pin to that
/// commit resolves there). `None` otherwise: the project then depends on the folder.
fn travelling_origin(repository: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git").arg("-C").arg(repository).args(args).output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let url = git(&["remote", "get-url", "origin"])?;
    let scp_like = !url.contains("://") && url.split_once(':').is_some_and(|(host, _)| host.contains('@'));
    let network = ["https://", "http://", "ssh://", "git://"].iter().any(|scheme| url.starts_with(scheme));
    if !(network || scp_like) || url.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        return None;
    }
    let holders = git(&["branch", "--remotes", "--contains", "HEAD", "--format=%(refname)"])?;
    holders.lines().any(|branch| branch.starts_with("refs/remotes/origin/")).then_some(url)
}

/// `path` as a TOML basic string's contents.
fn toml_escaped(path: &Path) -> String {
    path.display().to_string().replace('\\', "\\\\").replace('"', "\\\"")
}

/// A file or folder of the project that cannot be made: bad input (exit 2), not a failed check,
/// since it is PATH that does not take a project (a read-only folder, a file where a folder must
/// be, `/sys`).
fn failed(path: &Path, error: std::io::Error) -> Error {
    Error::new(exit::USAGE, format!("cannot write the project at {}: {error}", path.display()))
}

/// Writes the project; refuses (exit status 2) a PATH that exists and is not an empty folder, one
/// where the project cannot be written, or a repository without `runner/` and `cli/`.
pub fn exec(request: &NewRequest) -> Result<Created, Error> {
    let usage = |message: String| Error::new(exit::USAGE, message);
    let path = &request.path;
    if path.exists() || path.is_symlink() {
        let empty =
            path.is_dir() && std::fs::read_dir(path).map_err(|error| failed(path, error))?.next().is_none();
        if !empty {
            return Err(usage(format!("{} exists and is not an empty folder", path.display())));
        }
    }
    let repository = request
        .repository
        .canonicalize()
        .ok()
        .filter(|root| root.join("runner/Cargo.toml").is_file() && root.join("cli/Cargo.toml").is_file());
    let Some(repository) = repository else {
        return Err(usage(format!(
            "{} is not the block-size repository (no runner/Cargo.toml and cli/Cargo.toml); give --runner-path",
            request.repository.display()
        )));
    };

    std::fs::create_dir_all(path).map_err(|error| failed(path, error))?;
    let root = path.canonicalize().map_err(|error| failed(path, error))?;
    // The project's own link for the linker (`.cargo/config.toml` names `.cuda`, relative to
    // the project): no path of this machine in any file written.
    let note = match find_libcuda(&repository) {
        Some(file) => {
            let lib64 = root.join(".cuda/lib64");
            std::fs::create_dir_all(&lib64).map_err(|error| failed(&lib64, error))?;
            let link = lib64.join("libcuda.so");
            std::os::unix::fs::symlink(&file, &link).map_err(|error| failed(&link, error))?;
            String::new()
        }
        None => format!(
            "note: no libcuda.so to link against on this machine; install the NVIDIA driver or a CUDA toolkit, or run {} (it unpacks Debian's libcuda1), then {}\n",
            repository.join("scripts/setup").display(),
            root.join("scripts/setup-libcuda").display()
        ),
    };

    let ident = request.name.replace('-', "_");
    // With --runner-git, the Cargo.toml's dependencies name the repository and its revision
    // (the clone's commit where none is given): no path of this machine.
    let pinned = request
        .git
        .as_ref()
        .map(|(url, rev)| (url.clone(), rev.clone().or_else(|| head_commit(&repository))));
    let git = pinned.as_ref().map(|(url, rev)| match rev {
        Some(rev) => format!("git = \"{url}\", rev = \"{rev}\""),
        None => format!("git = \"{url}\""),
    });
    let fill = |text: &str| {
        let mut text = text.to_string();
        if let Some(source) = &git {
            text = text.replace(&format!("path = \"{REPOSITORY}/runner\""), source);
        }
        text.replace(NAME, &request.name)
            .replace(IDENT, &ident)
            .replace(REPOSITORY, &toml_escaped(&repository))
    };
    let cuda: &[Template] = if request.cuda { CUDA_TEMPLATES } else { &[] };
    for template in TEMPLATES.iter().chain(cuda) {
        let file = root.join(template.path.replace(NAME, &request.name));
        let text = select_lines(template.text, request.cuda);
        let mut text = if template.filled { fill(&text) } else { text };
        if request.cuda && template.path == "README.md" {
            text.push('\n');
            text.push_str(&fill(README_CUDA));
        }
        let folder = file.parent().expect("every file is in the project");
        std::fs::create_dir_all(folder).map_err(|error| failed(folder, error))?;
        std::fs::write(&file, text).map_err(|error| failed(&file, error))?;
        if EXECUTABLE.contains(&template.path) {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))
                .map_err(|error| failed(&file, error))?;
        }
    }
    let wheels = root.join("scripts/setup-cuda-wheels");
    std::fs::write(&wheels, SETUP_CUDA_WHEELS).map_err(|error| failed(&wheels, error))?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&wheels, std::fs::Permissions::from_mode(0o755))
            .map_err(|error| failed(&wheels, error))?;
    }

    let on = match &pinned {
        Some((url, Some(rev))) => format!("on block-size from {url} at {rev}"),
        Some((url, None)) => format!("on block-size from {url}"),
        None => format!(
            "on block-size at {} by path (it builds on this machine only; --runner-git URL for a project that travels)",
            repository.display()
        ),
    };
    let mut stdout = format!(
        "Created {name} in {root} ({files} files), {on}.\n\
         Test it (no GPU): cd {root} && cargo test\n\
         Sweep it on a GPU: cargo build --release && target/release/{name} --block-sizes 64,128,256\n\
         Its kernel is kernels/src/lib.rs; scripts/build-ptx rebuilds its PTX (scripts/setup-ptx, once a machine, sets up what it needs).\n",
        name = request.name,
        root = root.display(),
        files = TEMPLATES.len() + cuda.len() + 1,
    );
    if request.cuda {
        stdout.push_str(&format!(
            "Its CUDA C++ twin is cuda/stencil3.cu, its nvcc PTX ptx/stencil3-nvcc.ptx; scripts/build-cuda-twin rebuilds it.\n\
             Compare the two on a GPU: target/release/{} compare\n",
            request.name
        ));
    }
    Ok(Created { stdout, stderr: note })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_source_is_an_origin_of_the_network_that_holds_the_clones_commit() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let clone = std::env::temp_dir().join(format!("block-size-origin-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&clone).unwrap();
        let git = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .arg("-C")
                .arg(&clone)
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
                .args(args)
                .output()
                .unwrap();
            assert!(status.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&status.stderr));
        };
        git(&["init", "-q"]);
        git(&["commit", "-q", "--allow-empty", "-m", "one"]);
        assert_eq!(travelling_origin(&clone), None, "no origin");
        git(&["remote", "add", "origin", "https://example.org/you/block-size.git"]);
        assert_eq!(travelling_origin(&clone), None, "an origin that does not hold the commit");
        git(&["update-ref", "refs/remotes/origin/main", "HEAD"]);
        assert_eq!(travelling_origin(&clone).as_deref(), Some("https://example.org/you/block-size.git"));
        git(&["commit", "-q", "--allow-empty", "-m", "two, not pushed"]);
        assert_eq!(travelling_origin(&clone), None, "a commit origin does not have");
        git(&["update-ref", "refs/remotes/origin/main", "HEAD"]);
        for (url, travels) in [
            ("git@github.com:you/block-size.git", true),
            ("ssh://git@host/block-size", true),
            ("/home/you/block-size", false),
            ("file:///home/you/block-size", false),
            ("../block-size", false),
            ("C:block-size", false),
        ] {
            git(&["remote", "set-url", "origin", url]);
            assert_eq!(travelling_origin(&clone).is_some(), travels, "{url}");
        }
        std::fs::remove_dir_all(&clone).unwrap();
    }

    #[test]
    fn crate_names_are_checked_as_cargo_would_take_them() {
        for good in ["stencil", "my-sweep", "my_sweep2", "_2d", "a"] {
            assert_eq!(check_crate_name(good), Ok(()), "{good}");
        }
        for bad in
            ["", "2d", "-x", "My", "a b", "a.b", "fn", "self", "test", "build", "clap", "block-size-runner"]
        {
            assert!(check_crate_name(bad).is_err(), "{bad}");
        }
        assert!(check_crate_name(&"a".repeat(65)).is_err());
    }

    #[test]
    fn the_default_name_is_the_last_component_made_a_crate_name() {
        let name = |path: &str| default_name(Path::new(path));
        assert_eq!(name("/tmp/my-sweep"), Ok("my-sweep".into()));
        assert_eq!(name("/tmp/My Stencil.v2/"), Ok("my-stencil-v2".into()));
        assert_eq!(name("work/2d_blur"), Ok("_2d_blur".into()));
        let up = "/no-such-folder-block-size/..";
        assert_eq!(
            name(up).unwrap_err(),
            format!("{up} has no last component to name the crate after; give --name")
        );
        // An existing folder is named after its resolved path.
        assert_eq!(name("."), Ok("cli".into()));
        assert!(name("/tmp/fn").unwrap_err().contains("give --name"));
        assert!(name("/tmp/---").unwrap_err().contains("give --name"));
    }

    #[test]
    fn every_placeholder_is_in_a_filled_template_and_no_other() {
        for placeholder in [NAME, IDENT, REPOSITORY] {
            assert!(TEMPLATES.iter().any(|template| template.filled && template.text.contains(placeholder)));
            for template in TEMPLATES.iter().chain(CUDA_TEMPLATES).filter(|template| !template.filled) {
                assert!(!template.text.contains(placeholder), "{} holds {placeholder}", template.path);
            }
        }
    }

    #[test]
    fn the_cuda_only_lines_are_written_with_cuda_alone() {
        let text = "a\n//@ if --cuda\n  b\n    //@ end\nc";
        assert_eq!(select_lines(text, true), "a\n  b\nc");
        assert_eq!(select_lines(text, false), "a\nc");
        for template in TEMPLATES.iter().chain(CUDA_TEMPLATES) {
            let mut open = false;
            for line in template.text.lines().map(str::trim) {
                if line == CUDA_ONLY || line == CUDA_ONLY_END {
                    assert_eq!(open, line == CUDA_ONLY_END, "{}: unpaired or nested {line}", template.path);
                    open = !open;
                }
            }
            assert!(!open, "{}: {CUDA_ONLY} without {CUDA_ONLY_END}", template.path);
        }
        // Nothing of the twin is left in a project without it.
        for path in ["src/lib.rs", "tests/stencil3.rs"] {
            let template = TEMPLATES.iter().find(|template| template.path == path).unwrap();
            assert!(template.text.contains(CUDA_ONLY), "{path}");
            let plain = select_lines(template.text, false);
            for word in ["CUDA", "compare", "nvcc", "//@"] {
                assert!(!plain.contains(word), "{path} without --cuda holds {word}");
            }
        }
    }

    #[test]
    fn every_file_of_the_templates_is_written() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/new");
        let mut files = Vec::new();
        let mut folders = vec![root.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    files.push(path.strip_prefix(&root).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        files.sort();
        let mut embedded: Vec<String> = TEMPLATES
            .iter()
            .chain(CUDA_TEMPLATES)
            .map(|template| template.template.to_string())
            .chain(["README-cuda.md".to_string()])
            .collect();
        embedded.sort();
        assert_eq!(files, embedded, "every file under cli/templates/new/ is a template `new` writes");
        for template in TEMPLATES.iter().chain(CUDA_TEMPLATES) {
            assert_eq!(
                EXECUTABLE.contains(&template.path),
                template.path.starts_with("scripts/"),
                "{}",
                template.path
            );
        }
    }
}
