//! `block-size new` on the CPU: the project it writes (its files, its PTX and stamp, its pins
//! against this repository's; with `--cuda` the CUDA C++ twin, its PTX and stamp, and the script
//! that rebuilds them), its refusals, the project's own `cargo test` passing with no
//! environment set up for it (with `--cuda` too), and its program as built there: a launcher
//! that links no driver, so that its `--help` (which speaks of its own kernel) and its
//! one-line errors come anywhere, over a worker that does; its `scripts/build-ptx`
//! refusing in one line where LLVM 7 is missing; and its `scripts/setup-ptx` getting LLVM 7
//! from a (local, fake) release archive checked against its SHA-256, which `scripts/build-ptx`
//! then finds.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// Says what a long step does on the terminal even when the test harness captures output (it
/// captures `eprintln!`, not writes to the stderr handle).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

fn block_size() -> Command {
    Command::new(env!("CARGO_BIN_EXE_block-size"))
}

/// `block-size new` on this checkout by path (`--runner-path`): the projects' own tests then
/// build this tree's runner, not a commit of the clone's origin, which `new` would otherwise
/// pin where the clone has a network origin that holds its commit.
fn new_here() -> Command {
    let mut command = block_size();
    command.arg("new").arg("--runner-path").arg(repo());
    command
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A folder under the system's temporary folder, removed when dropped (a failed test too).
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let path =
            std::env::temp_dir().join(format!("block-size-new-{label}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file `block-size new` writes but the worker's, whose name is the project's
/// ([`files`]).
const FILES: [&str; 23] = [
    ".cargo/config.toml",
    ".gitignore",
    "Cargo.toml",
    "README.md",
    "kernels/Cargo.lock",
    "kernels/Cargo.toml",
    "kernels/builder/Cargo.toml",
    "kernels/builder/build.rs",
    "kernels/builder/src/main.rs",
    "kernels/rust-toolchain.toml",
    "kernels/src/barrier.rs",
    "kernels/src/lib.rs",
    "ptx/kernels.ptx",
    "ptx/kernels.stamp.toml",
    "rust-toolchain.toml",
    "rustfmt.toml",
    "scripts/build-ptx",
    "scripts/setup-cuda-wheels",
    "scripts/setup-libcuda",
    "scripts/setup-ptx",
    "src/lib.rs",
    "src/main.rs",
    "tests/stencil3.rs",
];

/// Every file `block-size new` writes for the project `name`, with `--cuda` or not, sorted.
fn files(name: &str, cuda: bool) -> Vec<String> {
    let extra: &[&str] = if cuda { &CUDA_FILES } else { &[] };
    let mut files: Vec<String> = FILES.iter().chain(extra).map(|file| file.to_string()).collect();
    files.push(format!("src/bin/{name}-cuda.rs"));
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The lines of `text` that start with `key`, trimmed: a TOML key's line.
fn lines_of(text: &str, key: &str) -> Vec<String> {
    text.lines().filter(|line| line.starts_with(key)).map(|line| line.trim().to_string()).collect()
}

/// The last `limit` bytes of `text` (on a character boundary), for a failure message.
fn tail(text: &[u8], limit: usize) -> String {
    let text = String::from_utf8_lossy(text);
    let start = text.char_indices().map(|(index, _)| index).find(|&index| index + limit >= text.len());
    text[start.unwrap_or(0)..].to_string()
}

/// The files `block-size new --cuda` writes besides [`FILES`].
const CUDA_FILES: [&str; 4] =
    ["cuda/stencil3.cu", "ptx/stencil3-nvcc.ptx", "ptx/stencil3-nvcc.stamp.toml", "scripts/build-cuda-twin"];

/// The project as written: every file there (`files`), no placeholder left, the repository's
/// pins.
fn check_files(project: &Path, name: &str, files: &[String]) {
    let mut written: Vec<String> = Vec::new();
    let mut folders = vec![project.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with(".cuda") {
                folders.push(path);
            } else if path.is_file() && !path.starts_with(project.join(".cuda")) {
                written.push(path.strip_prefix(project).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    written.sort();
    assert_eq!(written, files, "the files of the project");
    for file in files {
        let text = read(&project.join(file));
        for placeholder in ["scaffold-name", "scaffold_name", "/path/to/"] {
            assert!(!text.contains(placeholder), "{file} still holds {placeholder}");
        }
    }

    let manifest = read(&project.join("Cargo.toml"));
    let root = repo().canonicalize().unwrap();
    assert!(manifest.contains(&format!("name = \"{name}\"")), "{manifest}");
    let path = format!("path = \"{}\"", root.join("runner").display());
    assert!(manifest.contains(&path), "Cargo.toml lacks {path}: {manifest}");
    // The commands' options come from the runner (`SweepArgs`): the command line's crate is no
    // dependency of the project.
    let cli = format!("path = \"{}\"", root.join("cli").display());
    assert!(!manifest.contains(&cli), "Cargo.toml names {cli}: {manifest}");
    assert!(manifest.contains("\n[workspace]\n"), "the host crate is a workspace of its own");
    let lib = read(&project.join("src/lib.rs"));
    assert!(lib.contains(&format!("EmbeddedPtx::user(\"{name}\"")), "{lib}");
    let tests = read(&project.join("tests/stencil3.rs"));
    assert!(tests.contains(&format!("use {}::", name.replace('-', "_"))), "{tests}");

    // The kernels' toolchain and rust-cuda pin are this repository's.
    let (ours, theirs) = (
        read(&repo().join("kernels/rust-toolchain.toml")),
        read(&project.join("kernels/rust-toolchain.toml")),
    );
    for key in ["channel", "components"] {
        assert_eq!(lines_of(&theirs, key), lines_of(&ours, key), "kernels/rust-toolchain.toml {key}");
    }
    let host_toolchain = read(&project.join("rust-toolchain.toml"));
    assert_eq!(
        lines_of(&host_toolchain, "channel"),
        lines_of(&read(&repo().join("rust-toolchain.toml")), "channel")
    );
    let (ours, theirs) =
        (read(&repo().join("kernels/Cargo.toml")), read(&project.join("kernels/Cargo.toml")));
    assert_eq!(lines_of(&theirs, "cuda_std = "), lines_of(&ours, "cuda_std = "), "the pinned cuda_std");
    assert!(read(&project.join("kernels/builder/Cargo.toml")).contains(
        "cuda_builder = { git = \"https://github.com/Rust-GPU/rust-cuda\", rev = \"946c91f080770f30d42d7c706ac8185969274073\""
    ));
    // Where this repository has its barrier module, the project's is the same file.
    if let Ok(barrier) = std::fs::read_to_string(repo().join("kernels/src/barrier.rs")) {
        assert_eq!(read(&project.join("kernels/src/barrier.rs")), barrier, "kernels/src/barrier.rs");
    }

    // The PTX: libNVVM 11.8's ISA, the unaligned barrier only, the tile as dynamic shared
    // memory; and a stamp that belongs to it and to the kernels' sources as written.
    let ptx = read(&project.join("ptx/kernels.ptx"));
    assert!(ptx.contains("\n.version 7.8\n") && ptx.contains(".visible .entry stencil3("), "{ptx}");
    assert!(ptx.contains("barrier.sync \t0;") && !ptx.contains("bar.sync") && !ptx.contains(".aligned"));
    assert!(ptx.contains(".extern .shared .align 4 .b8 stencil3_tile[];"));
    let stamp = ptx_stamp::Stamp::parse(&read(&project.join("ptx/kernels.stamp.toml"))).unwrap();
    assert_eq!((stamp.kernels, stamp.compiler.as_str()), (vec!["stencil3".to_string()], "cuda_builder"));
    assert_eq!(stamp.ptx_sha256, ptx_stamp::sha256_hex(ptx.as_bytes()), "ptx/kernels.ptx is not the stamp's");
    assert_eq!(
        stamp.inputs_sha256,
        ptx_stamp::inputs_sha256(project, &stamp.inputs).unwrap(),
        "the kernels changed since their PTX was built: regenerate it in a project and copy ptx/ to cli/templates/new/ptx/"
    );
    assert_eq!(stamp.rust_cuda_rev.as_deref(), Some("946c91f080770f30d42d7c706ac8185969274073"));
    assert_eq!(stamp.toolchain, lines_of(&host_toolchain, "channel")[0].split('"').nth(1).map(String::from));
}

/// `.cargo/config.toml` names the project's own `.cuda`, relative to the project (no path of
/// this machine), whose `lib64/libcuda.so` links to a `libcuda.so`; or `block-size new` said in
/// one line how to get one. A copy of the project without `.cuda` gets the same link from
/// `scripts/setup-libcuda`, which refuses in one line, writing nothing, where a machine has none.
fn check_libcuda(project: &Path, stderr: &str) {
    let config = read(&project.join(".cargo/config.toml"));
    assert_eq!(
        lines_of(&config, "CUDA_LIBRARY_PATH"),
        ["CUDA_LIBRARY_PATH = { value = \".cuda\", relative = true }"]
    );
    let link = project.join(".cuda/lib64/libcuda.so");
    if !link.exists() {
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("scripts/setup-libcuda"), "{stderr}");
        return;
    }
    assert_eq!(stderr, "");
    let copy = project.with_file_name(format!("{}-copy", project.file_name().unwrap().to_string_lossy()));
    std::fs::create_dir_all(copy.join("scripts")).unwrap();
    std::fs::copy(project.join("scripts/setup-libcuda"), copy.join("scripts/setup-libcuda")).unwrap();
    let setup = || std::process::Command::new(copy.join("scripts/setup-libcuda"));
    let output = setup().output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let made = copy.join(".cuda/lib64/libcuda.so");
    assert_eq!(made.canonicalize().unwrap(), link.canonicalize().unwrap(), "the copy links what new linked");
    assert!(setup().output().unwrap().status.success(), "again: idempotent");
    // A machine with no driver, no toolkit and no block-size: one line, exit 1, nothing made.
    let nothing =
        ["/usr/lib/x86_64-linux-gnu/libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/local/cuda"];
    if nothing.iter().all(|path| !Path::new(path).exists()) {
        std::fs::remove_dir_all(copy.join(".cuda")).unwrap();
        let home = copy.join("home");
        let output = setup()
            .env_remove("CUDA_PATH")
            .env_remove("BLOCK_SIZE_CACHE")
            .env("HOME", &home)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!((output.status.code(), stderr.lines().count()), (Some(1), 1), "{stderr}");
        assert!(stderr.starts_with("Error: no libcuda.so to link against: "), "{stderr}");
        assert!(!copy.join(".cuda").exists());
    }
}

#[test]
fn new_writes_a_project_whose_own_tests_pass() {
    let temp = TempDir::new("project");
    // The default name: the folder's, made a crate name.
    let project = temp.0.join("My Stencil");
    let output = new_here().arg(&project).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("Created my-stencil in "), "{stdout}");
    assert!(
        stdout.contains(
            " by path (it builds on this machine only; --runner-git URL for a project that travels)."
        ),
        "{stdout}"
    );
    check_files(&project, "my-stencil", &files("my-stencil", false));
    assert!(!read(&project.join("README.md")).contains("--cuda"), "the twin's section is --cuda's");
    check_libcuda(&project, &stderr);

    // A second `new` into the same, now full, folder: one line, exit 2, nothing touched.
    let manifest = read(&project.join("Cargo.toml"));
    let again = new_here().arg(&project).args(["--name", "other"]).assert().code(2).stdout("");
    let stderr = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert_eq!(stderr, format!("Error: {} exists and is not an empty folder\n", project.display()));
    assert_eq!(read(&project.join("Cargo.toml")), manifest);

    let stdout = cargo_test(&project, "new_writes_a_project_whose_own_tests_pass");
    assert!(stdout.contains("test result: ok. 7 passed"), "{stdout}");
    check_program(&project, "my-stencil", false);
}

/// Where every project's `cargo test` builds: one folder under this repository's target/, so
/// that the dependencies (block-size-runner and the rest) build once for all of them and later
/// runs reuse them.
fn scaffold_target() -> PathBuf {
    repo().join("target/scaffold-test")
}

/// The project's own tests, as its user runs them: no CUDA_LIBRARY_PATH (its
/// .cargo/config.toml has one), its own toolchain file, in [`scaffold_target`]. Returns their
/// standard output; `test` names the test that runs them, in what it says while they run.
fn cargo_test(project: &Path, test: &str) -> String {
    // One project's `cargo test` at a time in the shared target folder: two at once were seen
    // to lose a dependency's rlib under the other's doc tests ("can't find crate").
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let target = scaffold_target();
    say!(
        "{test}: `cargo test` in {} (CARGO_TARGET_DIR={}; the first run builds block-size-runner and its dependencies, about a minute or more)",
        project.display(),
        target.display()
    );
    let started = std::time::Instant::now();
    let output = std::process::Command::new("cargo")
        .arg("test")
        .current_dir(project)
        .env_remove("CUDA_LIBRARY_PATH")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo starts");
    say!("{test}: its `cargo test` took {:.0?}", started.elapsed());
    assert!(
        output.status.success(),
        "`cargo test` in the new project failed ({}):\n--- stdout (end)\n{}\n--- stderr (end)\n{}",
        output.status,
        tail(&output.stdout, 6000),
        tail(&output.stderr, 6000)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The shared libraries `binary` names as NEEDED in its dynamic section (`readelf -d`, else
/// `objdump -p`).
fn needed_libraries(binary: &Path) -> Vec<String> {
    let run = |program: &str, flag: &str| std::process::Command::new(program).arg(flag).arg(binary).output();
    let (output, readelf) = match run("readelf", "-d") {
        Ok(output) => (output, true),
        Err(_) => (run("objdump", "-p").expect("readelf or objdump (binutils) to read the ELF"), false),
    };
    assert!(output.status.success(), "{}: {}", binary.display(), String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| match readelf {
            // ` 0x0000000000000001 (NEEDED)  Shared library: [libc.so.6]`
            true if line.contains("(NEEDED)") => {
                line.split('[').nth(1).map(|name| name.trim_end_matches(']').to_string())
            }
            // `  NEEDED               libc.so.6`
            false => line.trim().strip_prefix("NEEDED").map(|name| name.trim().to_string()),
            true => None,
        })
        .collect()
}

/// Words of this repository's kernels and docs that a project's help must not say: it sweeps
/// its own kernel.
const NOT_THE_PROJECTS: [&str; 6] = ["grayscale", "histogram", "bins", "pixel", "frame", "docs/search.md"];

/// The program `name` that `cargo test` built in the project: the launcher links no driver (the
/// worker does), so that where no driver loads its `--help` (and, with `--cuda`, `compare
/// --help`), which names its own kernel and none of this repository's, exits 0, bad input is
/// one line and exit 2, and a sweep is one `Error: no NVIDIA driver` line and exit 3.
fn check_program(project: &Path, name: &str, cuda: bool) {
    let launcher = scaffold_target().join("debug").join(name);
    let worker = scaffold_target().join("debug").join(format!("{name}-cuda"));
    let needed = needed_libraries(&launcher);
    assert!(!needed.iter().any(|library| library.starts_with("libcuda")), "{name} links {needed:?}");
    let needed = needed_libraries(&worker);
    assert!(needed.iter().any(|library| library == "libcuda.so.1"), "{name}-cuda links {needed:?}");

    // Never the repository's stub libcuda.so.1 (.cuda/lib64), which a test harness may have put
    // on the loader's path.
    let program = |args: &[&str]| {
        std::process::Command::new(&launcher)
            .args(args)
            .current_dir(project)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .expect("the launcher starts")
    };
    let mut helps = vec![vec!["--help"], vec!["tail", "--help"]];
    if cuda {
        helps.push(vec!["compare", "--help"]);
    }
    for args in helps {
        let output = program(&args);
        let help = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name} {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(help.contains("stencil3"), "{name} {args:?} does not name its kernel:\n{help}");
        for word in NOT_THE_PROJECTS {
            assert!(!help.to_lowercase().contains(word), "{name} {args:?} says {word}:\n{help}");
        }
    }
    assert_eq!(String::from_utf8_lossy(&program(&["--help"]).stdout).contains("compare"), cuda);

    let one_line = |args: &[&str], code: i32, start: &str| {
        let output = program(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            (output.status.code(), output.stdout.as_slice()),
            (Some(code), &b""[..]),
            "{name} {args:?}: {stderr}"
        );
        assert!(stderr.lines().count() == 1 && stderr.starts_with(start), "{name} {args:?}: {stderr}");
    };
    one_line(&["--n", "0"], 2, "Error: invalid value '0' for '--n <N>'");
    one_line(&["--block-sizes", "64,64"], 2, "Error: block size 64 is listed twice in --block-sizes");
    if has_driver() {
        say!("SKIPPED the no-driver run of {name}: this machine has libcuda.so.1");
    } else {
        one_line(&["--n", "1000"], 3, "Error: no NVIDIA driver: ");
        if cuda {
            one_line(&["compare", "--n", "1000"], 3, "Error: no NVIDIA driver: ");
        }
    }
}

/// Whether this machine's loader finds an NVIDIA driver library, without the repository's stub.
fn has_driver() -> bool {
    // SAFETY: loading the driver library runs its initialisers, as any CUDA program does.
    unsafe { libloading::Library::new("libcuda.so.1") }.is_ok()
}

#[test]
fn an_explicit_name_is_taken_as_given() {
    let temp = TempDir::new("name");
    // An existing empty folder is fine.
    let project = temp.0.join("anywhere");
    std::fs::create_dir(&project).unwrap();
    new_here().arg(&project).args(["--name", "blur_2d"]).assert().success();
    assert!(read(&project.join("Cargo.toml")).contains("name = \"blur_2d\""));
    assert!(read(&project.join("src/main.rs")).contains("launch(\"blur_2d-cuda\""));
    assert!(read(&project.join("src/bin/blur_2d-cuda.rs")).contains("blur_2d::run("));
}

/// The template file `path` (under `cli/templates/new/`).
fn template(path: &str) -> String {
    read(&repo().join("cli/templates/new").join(path))
}

/// A stand-in for nvcc at `folder/nvcc`: `--version` prints `release`, a compilation copies
/// `ptx` to its `-o` file with `.version 7.8` made `isa`.
fn fake_nvcc(folder: &Path, release: &str, ptx: &Path, isa: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let nvcc = folder.join("nvcc");
    let script = format!(
        "#!/bin/sh\n\
         if [ \"$1\" = --version ]; then printf 'nvcc: NVIDIA (R) Cuda compiler driver\\n{release}\\n'; exit 0; fi\n\
         while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n\
         sed 's/^\\.version 7\\.8$/.version {isa}/' '{}' >\"$out\"\n",
        ptx.display()
    );
    std::fs::write(&nvcc, script).unwrap();
    std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
    nvcc
}

/// The project's `scripts/build-cuda-twin` with `nvcc`.
fn build_cuda_twin(project: &Path, nvcc: &Path) -> std::process::Output {
    std::process::Command::new(project.join("scripts/build-cuda-twin"))
        .current_dir(project)
        .env("NVCC", nvcc)
        .output()
        .expect("the script starts")
}

#[test]
fn with_cuda_new_writes_the_twin_its_nvcc_ptx_and_a_stamp_that_belong_together() {
    use std::os::unix::fs::PermissionsExt as _;
    let temp = TempDir::new("cuda");
    let project = temp.0.join("twin");
    let output = new_here().arg(&project).arg("--cuda").output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("Created twin in ") && stdout.contains("(28 files)"), "{stdout}");
    assert!(stdout.contains("scripts/build-cuda-twin rebuilds it"), "{stdout}");
    check_files(&project, "twin", &files("twin", true));
    for file in ["cuda/stencil3.cu", "ptx/stencil3-nvcc.ptx", "ptx/stencil3-nvcc.stamp.toml"] {
        assert_eq!(read(&project.join(file)), template(file), "{file} is the template's");
    }
    let script = project.join("scripts/build-cuda-twin");
    assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o755);
    // The script names no path of this machine: it looks for nvcc where the machine it runs
    // on keeps one (below).
    let checkout = repo().canonicalize().unwrap();
    assert!(!read(&script).contains(&checkout.display().to_string()), "the script names this checkout");
    assert_eq!(read(&script), template("scripts/build-cuda-twin"));
    let readme = read(&project.join("README.md"));
    assert!(
        readme.contains("\n## The CUDA C++ twin (`--cuda`)\n") && readme.contains("scripts/build-cuda-twin")
    );
    assert!(readme.contains("scripts/build-cuda-twin --out target/cuda-twin"), "{readme}");
    assert!(!readme.contains(".cuda-nvcc"), "{readme}");

    // The twin's PTX: nvcc 11.8's ISA, for sm_75, the entry of the Rust kernel with the same
    // parameters (a compare launches both with one argument list), the source's two barriers
    // (nvcc's `__syncthreads()`, aligned, in place), and the tile as dynamic shared memory.
    let twin = read(&project.join("ptx/stencil3-nvcc.ptx"));
    let rust = read(&project.join("ptx/kernels.ptx"));
    assert!(twin.contains("\n.version 7.8\n.target sm_75\n"), "{twin}");
    let params = |ptx: &str| block_size_runner::testing::entry_params(ptx, "stencil3");
    assert_eq!(params(&twin), params(&rust), "the twin's parameters are the Rust kernel's");
    assert_eq!(params(&twin).unwrap(), ["u64", "u64", "u64"]);
    assert_eq!(twin.matches("\tbar.sync \t0;").count(), 2, "{twin}");
    assert!(twin.contains(".extern .shared .align 16 .b8 stencil3_tile[];"), "{twin}");
    let stamp = ptx_stamp::Stamp::parse(&read(&project.join("ptx/stencil3-nvcc.stamp.toml"))).unwrap();
    assert_eq!((stamp.kernels.clone(), stamp.compiler.as_str()), (vec!["stencil3".to_string()], "nvcc"));
    assert_eq!(stamp.inputs, ["cuda/stencil3.cu"]);
    assert_eq!(
        stamp.ptx_sha256,
        ptx_stamp::sha256_hex(twin.as_bytes()),
        "ptx/stencil3-nvcc.ptx is not the stamp's"
    );
    assert_eq!(
        stamp.inputs_sha256,
        ptx_stamp::inputs_sha256(&project, &stamp.inputs).unwrap(),
        "cuda/stencil3.cu changed since its PTX was built: cargo xtask ptx nvcc"
    );
    assert_eq!(stamp.nvcc.as_deref(), Some("Cuda compilation tools, release 11.8, V11.8.89"));
    assert_eq!(stamp.regenerate, "scripts/build-cuda-twin");

    // Its own tests, `compare` of the Rust kernel against the twin on the mock among them, and
    // its program with `compare`.
    let lib = read(&project.join("src/lib.rs"));
    assert!(lib.contains(".twin(CUDA)") && lib.contains("EmbeddedPtx::user(\"nvcc\""), "{lib}");
    let tests =
        cargo_test(&project, "with_cuda_new_writes_the_twin_its_nvcc_ptx_and_a_stamp_that_belong_together");
    assert!(tests.contains("test compare_times_the_rust_kernel_against_its_cuda_twin ... ok"), "{tests}");
    assert!(tests.contains("test compare_loads_the_twin_from_a_file_when_asked ... ok"), "{tests}");
    assert!(tests.contains("test result: ok. 10 passed"), "{tests}");
    check_program(&project, "twin", true);

    // The script, with a stand-in nvcc that writes the committed PTX: the same stamp, byte for
    // byte (`cargo xtask ptx nvcc` runs it with the real nvcc 11.8); after an edit of the
    // source, the stamp code's hash of the new source.
    let committed_stamp = read(&project.join("ptx/stencil3-nvcc.stamp.toml"));
    let release = stamp.nvcc.clone().unwrap();
    let committed_ptx = repo().join("cli/templates/new/ptx/stencil3-nvcc.ptx");
    let nvcc = fake_nvcc(&temp.0, &release, &committed_ptx, "7.8");
    let output = build_cuda_twin(&project, &nvcc);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("wrote ptx/stencil3-nvcc.ptx (PTX ISA 7.8, {release}) and ptx/stencil3-nvcc.stamp.toml\n")
    );
    assert_eq!(read(&project.join("ptx/stencil3-nvcc.ptx")), twin);
    assert_eq!(read(&project.join("ptx/stencil3-nvcc.stamp.toml")), committed_stamp);
    let source = project.join("cuda/stencil3.cu");
    std::fs::write(&source, read(&source) + "// edited\n").unwrap();
    assert!(build_cuda_twin(&project, &nvcc).status.success());
    let rebuilt = ptx_stamp::Stamp::parse(&read(&project.join("ptx/stencil3-nvcc.stamp.toml"))).unwrap();
    assert_eq!(rebuilt.inputs_sha256, ptx_stamp::inputs_sha256(&project, &rebuilt.inputs).unwrap());
    assert_ne!(rebuilt.inputs_sha256, stamp.inputs_sha256);
    assert_eq!(rebuilt, ptx_stamp::Stamp { inputs_sha256: rebuilt.inputs_sha256.clone(), ..stamp });

    // A newer nvcc's ISA: refused in one line, nothing written.
    let written = read(&project.join("ptx/stencil3-nvcc.stamp.toml"));
    let newer = temp.0.join("newer");
    std::fs::create_dir(&newer).unwrap();
    let nvcc = fake_nvcc(&newer, "Cuda compilation tools, release 12.4, V12.4.131", &committed_ptx, "8.4");
    let output = build_cuda_twin(&project, &nvcc);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!((output.status.code(), stderr.lines().count()), (Some(1), 1), "{stderr}");
    assert!(
        stderr.starts_with("Error: cuda/stencil3.cu: ")
            && stderr.contains("writes PTX ISA 8.4, above 7.8")
            && stderr.ends_with("nothing written\n"),
        "{stderr}"
    );
    assert_eq!(read(&project.join("ptx/stencil3-nvcc.ptx")), twin);
    assert_eq!(read(&project.join("ptx/stencil3-nvcc.stamp.toml")), written);

    // The same nvcc for this machine alone (`--out DIR`, which `compare --cuda-ptx` loads at
    // run time): any ISA, written there, ptx/ untouched.
    let output = std::process::Command::new(project.join("scripts/build-cuda-twin"))
        .args(["--out", "target/cuda-twin"])
        .current_dir(&project)
        .env("NVCC", &nvcc)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(read(&project.join("target/cuda-twin/stencil3-nvcc.ptx")).contains("\n.version 8.4\n"));
    let built =
        ptx_stamp::Stamp::parse(&read(&project.join("target/cuda-twin/stencil3-nvcc.stamp.toml"))).unwrap();
    assert_eq!(built.nvcc.as_deref(), Some("Cuda compilation tools, release 12.4, V12.4.131"));
    assert_eq!(read(&project.join("ptx/stencil3-nvcc.ptx")), twin);
    assert_eq!(read(&project.join("ptx/stencil3-nvcc.stamp.toml")), written);

    // Without NVCC, the nvcc on PATH comes first (before CUDA_PATH, /usr/local/cuda and
    // block-size's cache); with none anywhere, one line that says where it looked.
    let on_path_only = |path: &str| {
        std::process::Command::new(project.join("scripts/build-cuda-twin"))
            .args(["--out", "target/from-path"])
            .current_dir(&project)
            .env_remove("NVCC")
            .env_remove("CUDA_PATH")
            .env("BLOCK_SIZE_CACHE", temp.0.join("no-cache"))
            .env("PATH", path)
            .output()
            .unwrap()
    };
    let output = on_path_only(&format!("{}:/usr/bin:/bin", newer.display()));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("release 12.4"), "the nvcc on PATH");
    if !Path::new("/usr/local/cuda/bin/nvcc").exists() && !Path::new("/usr/bin/nvcc").exists() {
        let output = on_path_only("/usr/bin:/bin");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!((output.status.code(), stderr.lines().count()), (Some(1), 1), "{stderr}");
        assert!(stderr.starts_with("Error: no nvcc: set NVCC, put one on PATH, set CUDA_PATH"), "{stderr}");
    }
}

/// `program` on this process's PATH.
fn on_path(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|folder| folder.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("no {program} on PATH"))
}

#[test]
fn scripts_build_ptx_refuses_in_one_line_without_llvm_7() {
    use std::os::unix::fs::PermissionsExt as _;
    let temp = TempDir::new("build-ptx");
    let project = temp.0.join("rebuild");
    new_here().arg(&project).assert().success();
    let script = project.join("scripts/build-ptx");
    assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o755);
    // libNVVM 11.8 from the cache this repository's set-up fills, by this repository's script,
    // copied into the project: no path of this machine.
    let wheels = project.join("scripts/setup-cuda-wheels");
    assert!(read(&script).contains("cuda=$(\"$root/scripts/setup-cuda-wheels\" cuda-11.8)"));
    assert_eq!(read(&wheels), read(&repo().join("scripts/setup-cuda-wheels")));
    assert_eq!(std::fs::metadata(&wheels).unwrap().permissions().mode() & 0o777, 0o755);

    // No LLVM 7 to be found: a PATH of bash alone (no llvm-config-7, no llvm-config), then an
    // LLVM_CONFIG of another release. The real rebuild is not run here: it takes minutes.
    let bin = temp.0.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(on_path("bash"), bin.join("bash")).unwrap();
    let llvm_14 = temp.0.join("llvm-config");
    std::fs::write(&llvm_14, "#!/bin/sh\necho 14.0.6\n").unwrap();
    std::fs::set_permissions(&llvm_14, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ptx = (read(&project.join("ptx/kernels.ptx")), read(&project.join("ptx/kernels.stamp.toml")));
    for llvm_config in [None, Some(&llvm_14)] {
        let mut command = std::process::Command::new(&script);
        command.current_dir(&project).env_clear().env("PATH", &bin).env("HOME", &temp.0);
        if let Some(llvm_config) = llvm_config {
            command.env("LLVM_CONFIG", llvm_config);
        }
        let output = command.output().expect("the script starts");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!((output.status.code(), stderr.lines().count()), (Some(1), 1), "{llvm_config:?}: {stderr}");
        assert!(
            stderr.starts_with(
                "Error: cannot rebuild the PTX: missing LLVM 7 (run scripts/setup-ptx, or set LLVM_CONFIG"
            ) && stderr.ends_with("; nothing written\n"),
            "{llvm_config:?}: {stderr}"
        );
        assert!(output.stdout.is_empty());
    }
    assert_eq!((read(&project.join("ptx/kernels.ptx")), read(&project.join("ptx/kernels.stamp.toml"))), ptx);
}

/// An executable file (`rwxr-xr-x`) at `path` holding `text`.
fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whether this machine's PATH holds an LLVM 7 already (`llvm-config-7`, or an `llvm-config`
/// that reports 7.x), which `scripts/setup-ptx llvm` rightly takes instead of downloading.
fn llvm_7_on_path() -> bool {
    ["llvm-config-7", "llvm-config"].iter().any(|program| {
        std::process::Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success() && output.stdout.starts_with(b"7."))
    })
}

/// The file names in `folder`, sorted; none where it does not exist.
fn entries(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn scripts_setup_ptx_unpacks_llvm_7_of_the_pinned_checksum_where_build_ptx_finds_it() {
    let temp = TempDir::new("setup-ptx");
    let project = temp.0.join("setup");
    new_here().arg(&project).assert().success();
    let script = project.join("scripts/setup-ptx");
    assert_eq!(read(&script), template("scripts/setup-ptx"));
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o755);
    }
    // The official archive and the checksum three public projects pin for it (not verified
    // here against the file: this machine reaches no release site).
    let text = read(&script);
    assert!(text.contains(
        "\ndefault_llvm7_url=https://github.com/llvm/llvm-project/releases/download/llvmorg-7.0.1/clang+llvm-7.0.1-x86_64-linux-gnu-ubuntu-18.04.tar.xz\n"
    ));
    assert!(text.contains(
        "\ndefault_llvm7_sha256=e74ce06d99ed9ce42898e22d2a966f71ae785bdf4edbded93e628d696858921a\n"
    ));

    // The script with this process's PATH (curl, tar, xz, sha256sum), no LLVM_CONFIG and no
    // mirror or cache of the caller's: `home` is its HOME, `vars` the rest.
    let run = |args: &[&str], home: &Path, vars: &[(&str, &str)]| {
        let mut command = std::process::Command::new(&script);
        command.args(args).current_dir(&project).env("HOME", home);
        for name in [
            "LLVM_CONFIG",
            "BLOCK_SIZE_CACHE",
            "XDG_CACHE_HOME",
            "BLOCK_SIZE_LLVM7_URL",
            "BLOCK_SIZE_LLVM7_SHA256",
        ] {
            command.env_remove(name);
        }
        command.envs(vars.iter().copied()).output().expect("the script starts")
    };
    let one_line = |output: &std::process::Output, code: i32, start: &str| {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!((output.status.code(), stderr.lines().count()), (Some(code), 1), "{stderr}");
        assert!(stderr.starts_with(start), "{stderr}");
        stderr
    };
    let home = temp.0.join("home");
    let cache = home.join(".cache/rust-block-size");

    // Bad input, before any step: one line, exit 2, nothing done.
    let output = run(&["nvvm", "llvm-7"], &home, &[]);
    one_line(&output, 2, "Error: unknown step `llvm-7`: the steps are nvvm libclang toolchain llvm");
    assert!(output.stdout.is_empty());
    let some_sha256 = "a".repeat(64);
    let url_alone = [("BLOCK_SIZE_LLVM7_URL", "file:///nowhere.tar.xz")];
    let sha_alone = [("BLOCK_SIZE_LLVM7_SHA256", some_sha256.as_str())];
    for half in [&url_alone, &sha_alone] {
        let output = run(&["llvm"], &home, half);
        one_line(&output, 2, "Error: BLOCK_SIZE_LLVM7_URL and BLOCK_SIZE_LLVM7_SHA256 go together");
        assert!(output.stdout.is_empty());
    }
    let output = run(&["--help"], &home, &[]);
    let usage = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{usage}");
    assert!(usage.starts_with("usage: scripts/setup-ptx [STEP...]\n"), "{usage}");
    for step in ["nvvm", "libclang", "toolchain", "llvm"] {
        assert!(usage.contains(&format!("\n  {step} ")), "{step}: {usage}");
    }
    assert!(!home.exists(), "bad input and --help write nothing");

    if llvm_7_on_path() {
        say!(
            "scripts_setup_ptx_...: SKIPPED the download: this machine's PATH has an LLVM 7, which the script takes"
        );
        return;
    }

    // A release archive as the official one is laid out, of a stand-in llvm-config: its top
    // folder is not the one the script would guess.
    let tree = temp.0.join("tree");
    std::fs::create_dir_all(tree.join("some-top/bin")).unwrap();
    let stand_in = "#!/bin/sh\n[ \"$1\" = --version ] && echo 7.0.1\n";
    write_script(&tree.join("some-top/bin/llvm-config"), stand_in);
    let archive = temp.0.join("clang+llvm-7.tar.xz");
    let tar = std::process::Command::new("tar")
        .arg("-cJf")
        .arg(&archive)
        .arg("-C")
        .arg(&tree)
        .arg("some-top")
        .status()
        .unwrap();
    assert!(tar.success());
    let sha256 = ptx_stamp::sha256_hex(&std::fs::read(&archive).unwrap());
    let url = format!("file://{}", archive.display());

    // Another checksum: one line naming both, exit 1, nothing under the cache's llvm-7 folder
    // (BLOCK_SIZE_CACHE moves the cache).
    let elsewhere = temp.0.join("cache");
    let wrong = ptx_stamp::sha256_hex(b"not the archive");
    let elsewhere_text = elsewhere.display().to_string();
    let vars = [
        ("BLOCK_SIZE_LLVM7_URL", url.as_str()),
        ("BLOCK_SIZE_LLVM7_SHA256", wrong.as_str()),
        ("BLOCK_SIZE_CACHE", elsewhere_text.as_str()),
    ];
    let output = run(&["llvm"], &home, &vars);
    let stderr = one_line(&output, 1, "Error: ");
    assert!(stderr.contains(&format!("SHA-256 {sha256}, expected {wrong}")), "{stderr}");
    assert_eq!(entries(&elsewhere.join("llvm-7")), Vec::<String>::new(), "a refused archive leaves nothing");
    assert!(!home.exists());

    // Its own checksum: unpacked into the default cache, under HOME, in a folder named after
    // the checksum, nothing else left there (the download and the unpacking's temporary folder).
    let vars = [("BLOCK_SIZE_LLVM7_URL", url.as_str()), ("BLOCK_SIZE_LLVM7_SHA256", sha256.as_str())];
    let output = run(&["llvm"], &home, &vars);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    let unpacked = cache.join("llvm-7").join(&sha256).join("some-top/bin/llvm-config");
    assert_eq!(read(&unpacked), stand_in);
    assert_eq!(entries(&cache.join("llvm-7")), std::slice::from_ref(&sha256));
    assert!(stdout.contains(&format!("downloading {url}\n")), "{stdout}");
    assert!(
        stdout.contains(&format!("LLVM 7: ok, unpacked at {} (7.0.1)\n", unpacked.display())),
        "{stdout}"
    );

    // Again, the archive gone: found in the cache, nothing downloaded.
    std::fs::remove_file(&archive).unwrap();
    let output = run(&["llvm"], &home, &vars);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        stdout,
        format!("setup-ptx: LLVM 7: ok, cached at {} (7.0.1); nothing downloaded\n", unpacked.display())
    );

    // The project's scripts/build-ptx finds it, with no LLVM_CONFIG and no PATH to it: run with
    // nothing in its environment but HOME and the two things it checks besides (libclang named
    // by LIBCLANG_PATH, a CUDA_PATH folder of release 11.8 with a libnvvm.so), and a PATH of bash
    // and stand-ins for rustup and cargo (the real build takes minutes and rust-cuda's source),
    // it hands cargo the cached llvm-config as LLVM_CONFIG. With another HOME, whose cache holds
    // none, it refuses, naming LLVM 7 and scripts/setup-ptx.
    let bin = temp.0.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(on_path("bash"), bin.join("bash")).unwrap();
    write_script(&bin.join("rustup"), "#!/bin/sh\nexit 0\n");
    write_script(&bin.join("cargo"), "#!/bin/sh\necho \"cargo $* with LLVM_CONFIG=$LLVM_CONFIG\"\n");
    let cuda = temp.0.join("cuda-11.8");
    std::fs::create_dir_all(cuda.join("nvvm/lib64")).unwrap();
    std::fs::write(cuda.join("nvvm/lib64/libnvvm.so"), "").unwrap();
    std::fs::write(cuda.join("RELEASE"), "11.8.89 (a stand-in)\n").unwrap();
    let build_ptx = |home: &Path| {
        std::process::Command::new(project.join("scripts/build-ptx"))
            .current_dir(&project)
            .env_clear()
            .env("PATH", &bin)
            .env("HOME", home)
            .env("LIBCLANG_PATH", temp.0.join("libclang"))
            .env("CUDA_PATH", &cuda)
            .output()
            .expect("the script starts")
    };
    let output = build_ptx(&home);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("cargo run --release -p ptx-builder with LLVM_CONFIG={}\n", unpacked.display())
    );
    let output = build_ptx(&temp.0.join("another-home"));
    one_line(&output, 1, "Error: cannot rebuild the PTX: missing LLVM 7 (run scripts/setup-ptx, ");
    assert!(output.stdout.is_empty());
}

#[test]
fn refusals_are_one_line_exit_2_and_write_nothing() {
    let temp = TempDir::new("refused");
    let file = temp.0.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let at = |name: &str| temp.0.join(name).into_os_string();
    let cases: [(Vec<std::ffi::OsString>, String); 7] = [
        (
            vec![at("x"), "--name".into(), "Sweep".into()],
            "--name: `Sweep` is not a valid crate name: ".into(),
        ),
        (
            vec![at("x"), "--name".into(), "fn".into()],
            "--name: `fn` is not a valid crate name: it is a Rust keyword".into(),
        ),
        (
            vec![at("---")],
            "`---` (PATH's last component) makes no valid crate name (it is empty); give --name".into(),
        ),
        (
            vec![file.clone().into_os_string()],
            format!("{} exists and is not an empty folder", file.display()),
        ),
        (
            vec![at("y"), "--runner-path".into(), temp.0.clone().into_os_string()],
            format!("{} is not the block-size repository", temp.0.display()),
        ),
        // PATH that takes no project is bad input too, not a failed check (exit 1).
        (
            vec![file.join("sub").into_os_string(), "--name".into(), "sub".into()],
            format!("cannot write the project at {}: ", file.join("sub").display()),
        ),
        (vec!["/sys/block-size-new".into()], "cannot write the project at /sys/block-size-new: ".into()),
    ];
    for (args, message) in cases {
        let assert = block_size().arg("new").args(&args).assert().code(2).stdout("");
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with(&format!("Error: {message}")), "{args:?}: {stderr}");
    }
    let left: Vec<_> = std::fs::read_dir(&temp.0).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(left, ["a-file"], "a refused `new` writes nothing");
    // A read-only empty folder (root writes one anyway: nothing to see there).
    let root = std::fs::metadata("/proc/self").map(|metadata| std::os::unix::fs::MetadataExt::uid(&metadata));
    if root.is_ok_and(|uid| uid != 0) {
        use std::os::unix::fs::PermissionsExt as _;
        let locked = temp.0.join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        let assert = block_size().arg("new").arg(&locked).assert().code(2).stdout("");
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("Error: cannot write the project at "), "{stderr}");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn with_runner_git_the_manifest_names_no_path_and_cargo_resolves_it_from_anywhere() {
    let temp = TempDir::new("git");
    // A git repository of block-size standing in for the published one: a bare clone.
    let bare = temp.0.join("block-size.git");
    let cloned = std::process::Command::new("git")
        .args(["clone", "--bare", "-q"])
        .arg(repo())
        .arg(&bare)
        .status()
        .unwrap();
    assert!(cloned.success());
    let head =
        std::process::Command::new("git").arg("-C").arg(repo()).args(["rev-parse", "HEAD"]).output().unwrap();
    let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
    let url = format!("file://{}", bare.display());
    let project = temp.0.join("travels");
    let output = block_size().arg("new").arg(&project).args(["--runner-git", &url]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(&format!("on block-size from {url} at {head}.")), "{stdout}");
    let manifest = read(&project.join("Cargo.toml"));
    // The runner's, for the program and for its tests (with the mock).
    assert_eq!(manifest.matches(&format!("git = \"{url}\", rev = \"{head}\"")).count(), 2, "{manifest}");
    assert!(!manifest.contains("path = "), "{manifest}");
    // No file the project holds names this checkout: it travels.
    let checkout = repo().canonicalize().unwrap().display().to_string();
    let mut folders = vec![project.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_symlink() {
                continue; // .cuda's link to this machine's libcuda.so, git-ignored
            } else if path.is_dir() {
                folders.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                assert!(!text.contains(&checkout), "{} names {checkout}", path.display());
            }
        }
    }
    // Moved elsewhere, cargo still finds block-size's crates: from the repository, at the commit.
    let moved = temp.0.join("elsewhere/travels");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&project, &moved).unwrap();
    let metadata = std::process::Command::new("cargo")
        .args(["metadata", "--format-version", "1"])
        .current_dir(&moved)
        .output()
        .unwrap();
    assert!(metadata.status.success(), "{}", String::from_utf8_lossy(&metadata.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).unwrap();
    let source = |name: &str| {
        metadata["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|package| package["name"] == name)
            .map(|package| package["source"].as_str().unwrap_or_default().to_string())
    };
    let runner = source("block-size-runner").expect("no package block-size-runner");
    assert!(runner.starts_with(&format!("git+{url}?rev={head}")), "block-size-runner: {runner}");
    // The commands' options come from the runner: the command line's crate is not built.
    assert_eq!(source("block-size"), None, "the project depends on block-size");
    // And it builds there and its own tests pass, block-size's crates built from the
    // repository's commit, not from this checkout's folder.
    let stdout =
        cargo_test(&moved, "with_runner_git_the_manifest_names_no_path_and_cargo_resolves_it_from_anywhere");
    assert!(stdout.contains("test result: ok. 7 passed"), "{stdout}");
    // Bad input: a URL that would break the manifest is one line, exit 2, nothing written.
    let refused = block_size()
        .arg("new")
        .arg(temp.0.join("bad"))
        .args(["--runner-git", "x\", y = \"1"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).starts_with("Error: --runner-git "));
    assert!(!temp.0.join("bad").exists());
}
