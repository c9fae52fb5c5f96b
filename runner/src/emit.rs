/*!
`--emit-rust FILE`: the winning configuration as Rust source, for a program's `build.rs` or
crate to `include!`: a `const` per axis (`BLOCK_SIZE`, and the tunable's, e.g. `ITEMS_THR`),
a `Config` struct holding them, `MEASURED` (the winner), and
`config_for(device_name, compute_capability)`, which answers the winner on the GPU it was
measured on and `None` elsewhere. The provenance (GPU, driver, date, command, PTX sha256,
search, samples) is a comment at the top. Beside it, [`json_path`] holds the same winner as
JSON ([`Winner`]).
*/

use crate::provenance::Provenance;
use crate::sweep::Sweep;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The winner as the JSON beside the Rust source describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Winner {
    /// The GPU's name, as the driver reports it.
    pub gpu: String,
    /// Its compute capability, major and minor.
    pub compute_capability: (u32, u32),
    /// The kernel (`--kernel`, or your kernel's name).
    pub kernel: String,
    /// Threads per block of the winner.
    pub block_size: u32,
    /// The tunable's name and the winner's value, where the sweep had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunable: Option<(String, String)>,
    /// The winner's median milliseconds.
    pub median_ms: f64,
    /// Samples the winner took.
    pub samples: usize,
    /// Configurations the sweep had, and how many were measured to the end (not raced out,
    /// not failed).
    pub configurations: usize,
    /// What was measured with what.
    pub provenance: Provenance,
}

/// The JSON's file beside `rust`: `winner.rs` gives `winner.rs.json`.
pub fn json_path(rust: &Path) -> PathBuf {
    let mut name = rust.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// The winner of `sweep`, `None` where no row was measured.
pub fn winner(sweep: &Sweep, provenance: &Provenance) -> Option<Winner> {
    let best = sweep.best()?;
    Some(Winner {
        gpu: sweep.limits.name.clone(),
        compute_capability: sweep.limits.compute_capability,
        kernel: sweep.pass.kernel.to_string(),
        block_size: best.threads_per_block,
        tunable: sweep.tunable.clone().zip(best.tunable.clone()),
        median_ms: best.stats.median,
        samples: best.run_ms.len(),
        configurations: sweep.rows.len(),
        provenance: provenance.clone(),
    })
}

/// `items/thr` as a constant's name: `ITEMS_THR`.
pub fn const_name(axis: &str) -> String {
    let mut name: String =
        axis.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    name = name.split('_').filter(|part| !part.is_empty()).collect::<Vec<_>>().join("_");
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || name == "BLOCK_SIZE" {
        name.insert_str(0, "AXIS_");
    }
    name
}

/// A tunable's value as a Rust constant: its type and literal (`u32` where it is one, else `&str`).
fn literal(value: &str) -> (&'static str, String) {
    match value.parse::<u32>() {
        Ok(number) => ("u32", number.to_string()),
        Err(_) => ("&str", format!("{value:?}")),
    }
}

/// The Rust source of `winner`.
pub fn rust_source(winner: &Winner) -> String {
    let provenance = &winner.provenance;
    let (major, minor) = winner.compute_capability;
    let comment = |text: &str| text.lines().map(|line| format!("// {line}\n")).collect::<String>();
    let mut source = comment(&format!(
        "Written by {} --emit-rust: the fastest configuration of `{}` measured on {} (compute capability {major}.{minor}).\n\
         Median {:.4} ms over {} samples; {} configurations swept.\n\
         Date: {}\nDriver: {} (CUDA {})\nPTX sha256: {}\nCommand: {}",
        provenance.runner,
        winner.kernel,
        winner.gpu,
        winner.median_ms,
        winner.samples,
        winner.configurations,
        provenance.date,
        provenance.driver_release.as_deref().unwrap_or("release unknown"),
        provenance.cuda_driver_api,
        provenance.ptx_sha256,
        provenance.command,
    ));
    source += "\n/// Threads per block of the fastest configuration.\n";
    source += &format!("pub const BLOCK_SIZE: u32 = {};\n", winner.block_size);
    let tunable = winner.tunable.as_ref().map(|(name, value)| {
        let (ty, literal) = literal(value);
        (name, const_name(name), ty, literal)
    });
    if let Some((name, constant, ty, literal)) = &tunable {
        source +=
            &format!("/// `{name}` of the fastest configuration.\npub const {constant}: {ty} = {literal};\n");
    }
    source += "\n/// One launch configuration, an axis a field.\n\
               #[derive(Debug, Clone, Copy, PartialEq, Eq)]\n\
               pub struct Config {\n    /// Threads per block.\n    pub block_size: u32,\n";
    if let Some((name, constant, ty, _)) = &tunable {
        let ty = if *ty == "&str" { "&'static str" } else { ty };
        source += &format!("    /// `{name}`.\n    pub {}: {ty},\n", constant.to_ascii_lowercase());
    }
    source += "}\n\n/// The fastest configuration where it was measured.\npub const MEASURED: Config = Config { block_size: BLOCK_SIZE";
    if let Some((_, constant, _, _)) = &tunable {
        source += &format!(", {}: {constant}", constant.to_ascii_lowercase());
    }
    source += " };\n\n";
    source += &format!(
        "/// The measured configuration for a GPU, by its name as the driver reports it and its\n\
         /// compute capability: [`MEASURED`] on the GPU it was measured on, `None` on any other\n\
         /// (measure it there, or fall back to [`MEASURED`]).\n\
         pub fn config_for(device_name: &str, compute_capability: (u32, u32)) -> Option<Config> {{\n    \
         match (device_name, compute_capability) {{\n        ({:?}, ({major}, {minor})) => Some(MEASURED),\n        \
         _ => None,\n    }}\n}}\n",
        winner.gpu
    );
    source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_names_become_constants() {
        assert_eq!(const_name("items/thr"), "ITEMS_THR");
        assert_eq!(const_name("vector width"), "VECTOR_WIDTH");
        assert_eq!(const_name("4x"), "AXIS_4X");
        assert_eq!(const_name("block size"), "AXIS_BLOCK_SIZE");
        assert_eq!(json_path(Path::new("out/winner.rs")), Path::new("out/winner.rs.json"));
    }

    #[test]
    fn a_value_that_is_no_number_is_a_str_and_the_file_compiles() {
        let environment = crate::provenance::Environment {
            driver_release: Some("580.159.04".into()),
            driver_api_version: 13000,
            modules: Vec::new(),
        };
        let limits = crate::mock::MockGpu::h200_like().limits;
        let provenance = Provenance::new(&limits, &environment, "my-sweep", "2026-12-01T12:00:00Z");
        let winner = Winner {
            gpu: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            kernel: "scale".into(),
            block_size: 256,
            tunable: Some(("variant".into(), "x4 \"wide\"".into())),
            median_ms: 0.5,
            samples: 10,
            configurations: 26,
            provenance,
        };
        let source = rust_source(&winner);
        assert!(source.contains("pub const VARIANT: &str = \"x4 \\\"wide\\\"\";"), "{source}");
        assert!(source.contains("pub variant: &'static str,"), "{source}");
        let dir = std::env::temp_dir().join(format!("block-size-emit-str-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("winner.rs"), format!("#![deny(warnings)]\n{source}")).unwrap();
        let output = std::process::Command::new("rustc")
            .args(["--edition", "2021", "--crate-type", "lib", "--crate-name", "winner", "winner.rs"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
