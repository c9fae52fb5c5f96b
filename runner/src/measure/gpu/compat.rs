/*!
Whether this driver can load a module: the PTX ISA a module is written in (its `.version`),
the CUDA release that introduced that ISA, the CUDA version the driver supports
(`cuDriverGetVersion`), and the driver branch that brings a CUDA version. Pure logic, no
driver: [`check`] runs before each module is loaded, and [`Unloadable`] is the one line a run
prints when a module cannot be loaded, whether this check or the driver itself said so.

Sources: NVIDIA's PTX ISA release notes ("PTX ISA Version" → "CUDA release" table) and the
CUDA Toolkit release notes (table "CUDA Toolkit and Minimum Required Driver Version").
*/

use crate::measure::gpu::ptx::EmbeddedPtx;
use std::fmt;

/// A PTX ISA version, as a module's `.version` line states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Isa {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A CUDA version: a toolkit release, or what a driver supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cuda {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
}

impl Cuda {
    /// The version `cuDriverGetVersion` encodes as `1000 major + 10 minor` (12080 is 12.8);
    /// `None` for 0 or less, which is how a driver that did not say reads.
    pub fn from_driver(version: i32) -> Option<Self> {
        let version = u32::try_from(version).ok().filter(|&version| version > 0)?;
        Some(Self { major: version / 1000, minor: (version % 1000) / 10 })
    }

    #[cfg_attr(not(test), allow(dead_code))]
    /// The driver API's encoding: 12.8 is 12080.
    pub fn to_driver(self) -> i32 {
        (self.major * 1000 + self.minor * 10) as i32
    }
}

impl fmt::Display for Cuda {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How this runner prints a driver's `cuDriverGetVersion` value: 12080 is `12.8`, and a
/// driver that did not say is `unknown`.
pub fn driver_version_text(version: i32) -> String {
    Cuda::from_driver(version).map_or_else(|| "unknown".to_string(), |cuda| cuda.to_string())
}

#[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
/// The project's PTX ISA floor: CUDA 11.8's, the newest an R520 driver loads. Every module this
/// repository commits stays at or below it (the repository tests check).
pub const ISA_FLOOR: Isa = isa(7, 8);

const fn isa(major: u32, minor: u32) -> Isa {
    Isa { major, minor }
}

const fn cuda(major: u32, minor: u32) -> Cuda {
    Cuda { major, minor }
}

/// Each PTX ISA and the CUDA release that introduced it, oldest first (PTX ISA release
/// notes). CUDA 12.6 brought no new ISA: it reads 8.5, as 12.5 does.
pub const ISA_RELEASES: [(Isa, Cuda); 22] = [
    (isa(6, 3), cuda(10, 0)),
    (isa(6, 4), cuda(10, 1)),
    (isa(6, 5), cuda(10, 2)),
    (isa(7, 0), cuda(11, 0)),
    (isa(7, 1), cuda(11, 1)),
    (isa(7, 2), cuda(11, 2)),
    (isa(7, 3), cuda(11, 3)),
    (isa(7, 4), cuda(11, 4)),
    (isa(7, 5), cuda(11, 5)),
    (isa(7, 6), cuda(11, 6)),
    (isa(7, 7), cuda(11, 7)),
    (isa(7, 8), cuda(11, 8)),
    (isa(8, 0), cuda(12, 0)),
    (isa(8, 1), cuda(12, 1)),
    (isa(8, 2), cuda(12, 2)),
    (isa(8, 3), cuda(12, 3)),
    (isa(8, 4), cuda(12, 4)),
    (isa(8, 5), cuda(12, 5)),
    (isa(8, 6), cuda(12, 7)),
    (isa(8, 7), cuda(12, 8)),
    (isa(8, 8), cuda(12, 9)),
    (isa(9, 0), cuda(13, 0)),
];

/// The oldest driver branch that supports each CUDA release (CUDA Toolkit release notes,
/// minimum Linux driver per toolkit).
pub const DRIVER_BRANCHES: [(Cuda, u32); 22] = [
    (cuda(10, 0), 410),
    (cuda(10, 1), 418),
    (cuda(10, 2), 440),
    (cuda(11, 0), 450),
    (cuda(11, 1), 455),
    (cuda(11, 2), 460),
    (cuda(11, 3), 465),
    (cuda(11, 4), 470),
    (cuda(11, 5), 495),
    (cuda(11, 6), 510),
    (cuda(11, 7), 515),
    (cuda(11, 8), 520),
    (cuda(12, 0), 525),
    (cuda(12, 1), 530),
    (cuda(12, 2), 535),
    (cuda(12, 3), 545),
    (cuda(12, 4), 550),
    (cuda(12, 5), 555),
    (cuda(12, 6), 560),
    (cuda(12, 8), 570),
    (cuda(12, 9), 575),
    (cuda(13, 0), 580),
];

/// The newest ISA and CUDA release this runner knows.
fn newest_known() -> (Isa, Cuda) {
    ISA_RELEASES[ISA_RELEASES.len() - 1]
}

/// The `.version X.Y` of a PTX text: the first directive line that states one.
pub fn parse_isa(ptx: &str) -> Option<Isa> {
    ptx.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(".version")?;
        let (major, minor) = rest.split_whitespace().next()?.split_once('.')?;
        Some(Isa { major: major.parse().ok()?, minor: minor.parse().ok()? })
    })
}

/// The `.target sm_XY` of a PTX text, as written (`sm_75`).
pub fn parse_target(ptx: &str) -> Option<&str> {
    ptx.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(".target")?;
        rest.split(|c: char| c == ',' || c.is_whitespace()).find(|word| !word.is_empty())
    })
}

/// The CUDA version a driver must support to load PTX of an ISA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// This release or newer.
    AtLeast(Cuda),
    /// An ISA newer than this runner's table: a release newer than the newest it knows.
    NewerThan(Cuda),
}

/// What loading PTX of `isa` requires of the driver.
pub fn required_cuda(isa: Isa) -> Requirement {
    if let Some(&(_, cuda)) = ISA_RELEASES.iter().find(|(known, _)| *known == isa) {
        return Requirement::AtLeast(cuda);
    }
    let (newest_isa, newest_cuda) = newest_known();
    if isa > newest_isa {
        return Requirement::NewerThan(newest_cuda);
    }
    // An ISA the table skips (older than 6.3, or a minor number never released): the
    // release of the next known ISA is enough.
    let next = ISA_RELEASES.iter().find(|(known, _)| *known > isa).map_or(newest_cuda, |&(_, cuda)| cuda);
    Requirement::AtLeast(next)
}

impl Requirement {
    /// Whether a driver supporting `driver` meets it.
    pub fn met_by(self, driver: Cuda) -> bool {
        match self {
            Self::AtLeast(cuda) => driver >= cuda,
            Self::NewerThan(cuda) => driver > cuda,
        }
    }
}

impl fmt::Display for Requirement {
    /// `CUDA 12.9 or newer`, `a CUDA newer than 13.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AtLeast(cuda) => write!(f, "CUDA {cuda} or newer"),
            Self::NewerThan(cuda) => write!(f, "a CUDA newer than {cuda}"),
        }
    }
}

/// The newest PTX ISA a CUDA version loads (12.6 loads up to 8.5, 12.8 up to 8.7); `None`
/// before the table's first release.
pub fn newest_isa(cuda: Cuda) -> Option<Isa> {
    ISA_RELEASES.iter().rev().find(|(_, release)| *release <= cuda).map(|&(isa, _)| isa)
}

/// The driver branch to install for a CUDA version: the oldest branch that supports it
/// (12.7, never released, gets 12.8's R570). `None` past the table.
pub fn driver_branch(cuda: Cuda) -> Option<u32> {
    DRIVER_BRANCHES.iter().find(|(release, _)| *release >= cuda).map(|&(_, branch)| branch)
}

/// What to tell the user to install for `requirement`.
fn update_advice(requirement: Requirement) -> String {
    let newest_branch = DRIVER_BRANCHES[DRIVER_BRANCHES.len() - 1].1;
    match requirement {
        Requirement::AtLeast(cuda) => match driver_branch(cuda) {
            Some(branch) => format!("update the NVIDIA driver to branch R{branch} or newer"),
            None => format!("update the NVIDIA driver to a branch newer than R{newest_branch}"),
        },
        Requirement::NewerThan(_) => {
            format!("update the NVIDIA driver to a branch newer than R{newest_branch}")
        }
    }
}

/// How the driver itself refused a module (`cuModuleLoadData`'s error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`: the PTX ISA is newer than the driver's.
    UnsupportedPtxVersion,
    /// `CUDA_ERROR_INVALID_PTX`: the driver's PTX compiler rejected the text (drivers from
    /// before the dedicated error say this of too new an ISA too).
    InvalidPtx,
    /// `CUDA_ERROR_NO_BINARY_FOR_GPU`: nothing in the module this GPU can run.
    NoBinaryForGpu,
    /// `CUDA_ERROR_INVALID_SOURCE`: the driver could not read the module.
    InvalidSource,
    /// `CUDA_ERROR_JIT_COMPILER_NOT_FOUND`: the driver's PTX JIT compiler is missing.
    JitCompilerNotFound,
}

impl Refusal {
    /// The driver API's name of the error.
    pub fn code(self) -> &'static str {
        match self {
            Self::UnsupportedPtxVersion => "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
            Self::InvalidPtx => "CUDA_ERROR_INVALID_PTX",
            Self::NoBinaryForGpu => "CUDA_ERROR_NO_BINARY_FOR_GPU",
            Self::InvalidSource => "CUDA_ERROR_INVALID_SOURCE",
            Self::JitCompilerNotFound => "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        }
    }
}

/// Why a module cannot be loaded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Found before loading: the module's ISA needs more than the driver supports.
    TooNew(Requirement),
    /// The driver refused the module.
    Refused(Refusal),
}

/// A module this driver cannot load, with everything its one-line message names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unloadable {
    /// The module.
    pub module: EmbeddedPtx,
    /// The module's PTX ISA, where its text states one.
    pub isa: Option<Isa>,
    /// The CUDA version the driver supports, where it says.
    pub driver: Option<Cuda>,
    /// Why it cannot load: this check's verdict, or the driver's refusal.
    pub cause: Cause,
}

impl Unloadable {
    /// The refusal of `module` by a driver supporting `driver_version` (`cuDriverGetVersion`).
    pub fn refused(module: EmbeddedPtx, driver_version: i32, refusal: Refusal) -> Self {
        Self {
            module,
            isa: parse_isa(module.ptx),
            driver: Cuda::from_driver(driver_version),
            cause: Cause::Refused(refusal),
        }
    }

    fn driver_text(&self) -> String {
        match self.driver {
            Some(cuda) => match newest_isa(cuda) {
                Some(isa) => format!("this driver supports CUDA {cuda} (PTX ISA up to {isa})"),
                None => format!("this driver supports CUDA {cuda}"),
            },
            None => "this driver does not say which CUDA version it supports".to_string(),
        }
    }

    fn requirement(&self) -> Option<Requirement> {
        match self.cause {
            Cause::TooNew(requirement) => Some(requirement),
            Cause::Refused(_) => self.isa.map(required_cuda),
        }
    }
}

impl fmt::Display for Unloadable {
    /// One line: which module (label and file), its ISA, the CUDA it needs, the CUDA this
    /// driver supports, and what to do.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // This project's modules by their file; a module of your own by its label.
        let module = if self.module.file.is_empty() {
            format!("the {} module", self.module.label)
        } else {
            format!("the {} module (kernels/ptx/{}.ptx)", self.module.label, self.module.file)
        };
        let isa = self.isa.map_or_else(|| "an unstated PTX ISA".to_string(), |isa| format!("PTX ISA {isa}"));
        let needs = match self.requirement() {
            Some(Requirement::AtLeast(cuda)) => format!("which needs CUDA {cuda} or newer"),
            Some(Requirement::NewerThan(cuda)) => {
                let (newest_isa, _) = newest_known();
                format!(
                    "newer than this runner knows (its newest is {newest_isa}, from CUDA {cuda}), so it needs a CUDA newer than {cuda}"
                )
            }
            None => "whose CUDA requirement is unknown".to_string(),
        };
        match self.cause {
            Cause::TooNew(requirement) => write!(
                f,
                "{module} is {isa}, {needs}, but {}: {}",
                self.driver_text(),
                update_advice(requirement)
            ),
            Cause::Refused(refusal) => {
                let target = parse_target(self.module.ptx);
                let extra = match (refusal, target) {
                    (Refusal::NoBinaryForGpu, Some(target)) => {
                        format!(" (it is built for {target} and newer GPUs)")
                    }
                    (Refusal::JitCompilerNotFound, _) => " (its PTX JIT compiler is missing)".to_string(),
                    _ => String::new(),
                };
                write!(
                    f,
                    "the driver refused {module} with {}{extra}; the module is {isa}, {needs}, and {}: {}",
                    refusal.code(),
                    self.driver_text(),
                    self.refusal_advice(refusal, target)
                )
            }
        }
    }
}

impl Unloadable {
    /// What to do about a refusal: a driver older than the module needs is updated; a
    /// driver that should have loaded it is told apart by what it said.
    fn refusal_advice(&self, refusal: Refusal, target: Option<&str>) -> String {
        let requirement = self.requirement();
        let update = requirement.map_or_else(|| "update the NVIDIA driver".to_string(), update_advice);
        let met = matches!((requirement, self.driver), (Some(requirement), Some(driver)) if requirement.met_by(driver));
        if !met {
            return update;
        }
        match refusal {
            Refusal::NoBinaryForGpu => format!(
                "this GPU cannot run it: run on a GPU of {} or newer",
                target.map_or_else(|| "the module's target".to_string(), target_name)
            ),
            Refusal::JitCompilerNotFound => {
                "install the full NVIDIA driver, whose libnvidia-ptxjitcompiler compiles PTX".to_string()
            }
            Refusal::UnsupportedPtxVersion | Refusal::InvalidPtx | Refusal::InvalidSource => {
                "reinstall the NVIDIA driver so that libcuda and its PTX JIT compiler \
                 (libnvidia-ptxjitcompiler) come from one release, or regenerate the PTX if it was edited"
                    .to_string()
            }
        }
    }
}

/// `sm_75` as `compute capability 7.5`; other targets as written.
fn target_name(target: &str) -> String {
    let digits: String = target.trim_start_matches("sm_").chars().take_while(char::is_ascii_digit).collect();
    match digits.len() {
        2.. => format!("compute capability {}.{}", &digits[..digits.len() - 1], &digits[digits.len() - 1..]),
        _ => target.to_string(),
    }
}

/// The check before loading `module` on a driver that supports `driver_version`
/// (`cuDriverGetVersion`; 0 or less when unknown). A module whose ISA is unstated, or a
/// driver that does not say, passes: the driver decides when it loads.
pub fn check(module: EmbeddedPtx, driver_version: i32) -> Result<(), Unloadable> {
    let (Some(isa), Some(driver)) = (parse_isa(module.ptx), Cuda::from_driver(driver_version)) else {
        return Ok(());
    };
    let requirement = required_cuda(isa);
    if requirement.met_by(driver) {
        return Ok(());
    }
    Err(Unloadable { module, isa: Some(isa), driver: Some(driver), cause: Cause::TooNew(requirement) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(ptx: &'static str) -> EmbeddedPtx {
        EmbeddedPtx { label: "test", file: "test", ptx, stamp_text: "" }
    }

    #[test]
    fn cuda_releases_and_the_newest_isa_they_load() {
        // NVIDIA's published pairs: CUDA release -> PTX ISA.
        for (release, want) in [
            ((11, 8), (7, 8)),
            ((12, 0), (8, 0)),
            ((12, 4), (8, 4)),
            ((12, 6), (8, 5)),
            ((12, 8), (8, 7)),
            ((12, 9), (8, 8)),
            ((13, 0), (9, 0)),
        ] {
            let got = newest_isa(cuda(release.0, release.1)).unwrap();
            assert_eq!((got.major, got.minor), want, "CUDA {release:?}");
        }
        assert_eq!(newest_isa(cuda(9, 2)), None);
    }

    #[test]
    fn the_full_isa_table_as_published() {
        let table: Vec<String> = ISA_RELEASES.iter().map(|(isa, cuda)| format!("{isa}->{cuda}")).collect();
        assert_eq!(
            table.join(" "),
            "6.3->10.0 6.4->10.1 6.5->10.2 7.0->11.0 7.1->11.1 7.2->11.2 7.3->11.3 7.4->11.4 \
             7.5->11.5 7.6->11.6 7.7->11.7 7.8->11.8 8.0->12.0 8.1->12.1 8.2->12.2 8.3->12.3 \
             8.4->12.4 8.5->12.5 8.6->12.7 8.7->12.8 8.8->12.9 9.0->13.0"
        );
        for (isa, cuda) in ISA_RELEASES {
            assert_eq!(required_cuda(isa), Requirement::AtLeast(cuda));
        }
        assert!(ISA_RELEASES.windows(2).all(|pair| pair[0].0 < pair[1].0 && pair[0].1 < pair[1].1));
    }

    #[test]
    fn an_isa_past_the_table_needs_a_newer_cuda_than_the_newest_known() {
        assert_eq!(required_cuda(isa(9, 1)), Requirement::NewerThan(cuda(13, 0)));
        assert_eq!(required_cuda(isa(10, 0)), Requirement::NewerThan(cuda(13, 0)));
        assert!(!Requirement::NewerThan(cuda(13, 0)).met_by(cuda(13, 0)));
        assert!(Requirement::NewerThan(cuda(13, 0)).met_by(cuda(13, 1)));
        // Below the table: the first known release is enough.
        assert_eq!(required_cuda(isa(6, 0)), Requirement::AtLeast(cuda(10, 0)));
    }

    #[test]
    fn driver_branches_per_cuda_release() {
        for (release, branch) in [
            ((11, 8), 520),
            ((12, 0), 525),
            ((12, 1), 530),
            ((12, 2), 535),
            ((12, 3), 545),
            ((12, 4), 550),
            ((12, 5), 555),
            ((12, 6), 560),
            ((12, 8), 570),
            ((12, 9), 575),
            ((13, 0), 580),
        ] {
            assert_eq!(driver_branch(cuda(release.0, release.1)), Some(branch), "CUDA {release:?}");
        }
        // 12.7 was never released: 12.8's branch brings its ISA (8.6).
        assert_eq!(driver_branch(cuda(12, 7)), Some(570));
        assert_eq!(driver_branch(cuda(13, 1)), None);
    }

    #[test]
    fn driver_versions_print_as_major_dot_minor() {
        assert_eq!(driver_version_text(12080), "12.8");
        assert_eq!(driver_version_text(13000), "13.0");
        assert_eq!(driver_version_text(11080), "11.8");
        assert_eq!(driver_version_text(0), "unknown");
        assert_eq!(Cuda::from_driver(12090), Some(cuda(12, 9)));
        assert_eq!(cuda(12, 8).to_driver(), 12080);
    }

    #[test]
    fn the_floor_is_what_cuda_11_8_loads() {
        assert_eq!(newest_isa(cuda(11, 8)), Some(ISA_FLOOR));
        assert_eq!(driver_branch(cuda(11, 8)), Some(520));
    }

    #[test]
    fn isa_and_target_are_read_from_the_ptx_text() {
        let text = "//\n// Generated\n//\n\n.version 8.8\n.target sm_75\n.address_size 64\n";
        assert_eq!(parse_isa(text), Some(isa(8, 8)));
        assert_eq!(parse_target(text), Some("sm_75"));
        assert_eq!(parse_isa(".version 10.12\n"), Some(isa(10, 12)));
        assert_eq!(parse_isa("// .version 8.8 in a comment is not a directive\n"), None);
        assert_eq!(parse_target(".target sm_90a, debug\n"), Some("sm_90a"));
        for embedded in [crate::measure::gpu::ptx::BLOCKING_MODULE, crate::measure::gpu::ptx::fixtures::NVCC]
        {
            assert!(parse_isa(embedded.ptx).is_some(), "{} states its ISA", embedded.file);
        }
    }

    #[test]
    fn a_new_enough_driver_passes_and_an_old_one_is_named() {
        let ptx = module(".version 8.8\n.target sm_75\n");
        assert_eq!(check(ptx, 12090), Ok(()));
        assert_eq!(check(ptx, 13000), Ok(()));
        assert_eq!(check(ptx, 0), Ok(()), "a driver that does not say is left to decide");
        assert_eq!(check(module("no version\n"), 12000), Ok(()));
        let error = check(ptx, 12080).unwrap_err();
        assert_eq!(error.cause, Cause::TooNew(Requirement::AtLeast(cuda(12, 9))));
        assert_eq!(
            error.to_string(),
            "the test module (kernels/ptx/test.ptx) is PTX ISA 8.8, which needs CUDA 12.9 or newer, \
             but this driver supports CUDA 12.8 (PTX ISA up to 8.7): update the NVIDIA driver to branch R575 or newer"
        );
    }

    #[test]
    fn an_isa_newer_than_the_table_says_so() {
        let error = check(module(".version 9.2\n"), 13000).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the test module (kernels/ptx/test.ptx) is PTX ISA 9.2, newer than this runner knows (its newest is 9.0, \
             from CUDA 13.0), so it needs a CUDA newer than 13.0, but this driver supports CUDA 13.0 (PTX ISA up to 9.0): \
             update the NVIDIA driver to a branch newer than R580"
        );
        assert_eq!(check(module(".version 9.2\n"), 13010), Ok(()), "a newer driver is left to decide");
    }

    #[test]
    fn a_driver_refusal_is_one_line_with_the_same_facts() {
        let ptx = module(".version 9.0\n.target sm_75\n");
        let refused = Unloadable::refused(ptx, 12080, Refusal::UnsupportedPtxVersion);
        assert_eq!(
            refused.to_string(),
            "the driver refused the test module (kernels/ptx/test.ptx) with CUDA_ERROR_UNSUPPORTED_PTX_VERSION; \
             the module is PTX ISA 9.0, which needs CUDA 13.0 or newer, and this driver supports CUDA 12.8 \
             (PTX ISA up to 8.7): update the NVIDIA driver to branch R580 or newer"
        );
        let no_binary = Unloadable::refused(ptx, 13000, Refusal::NoBinaryForGpu).to_string();
        assert_eq!(
            no_binary,
            "the driver refused the test module (kernels/ptx/test.ptx) with CUDA_ERROR_NO_BINARY_FOR_GPU \
             (it is built for sm_75 and newer GPUs); the module is PTX ISA 9.0, which needs CUDA 13.0 or newer, \
             and this driver supports CUDA 13.0 (PTX ISA up to 9.0): this GPU cannot run it: run on a GPU of \
             compute capability 7.5 or newer"
        );
        // A driver new enough by its own word that still says the ISA is unsupported.
        let mismatched = Unloadable::refused(ptx, 13000, Refusal::UnsupportedPtxVersion).to_string();
        assert!(mismatched.ends_with(
            "reinstall the NVIDIA driver so that libcuda and its PTX JIT compiler \
             (libnvidia-ptxjitcompiler) come from one release, or regenerate the PTX if it was edited"
        ));
        assert_eq!(target_name("sm_120"), "compute capability 12.0");
        assert_eq!(target_name("compute_75"), "compute_75");
        assert!(
            no_binary.contains("with CUDA_ERROR_NO_BINARY_FOR_GPU (it is built for sm_75 and newer GPUs);")
        );
        for refusal in [Refusal::InvalidPtx, Refusal::InvalidSource, Refusal::JitCompilerNotFound] {
            let line = Unloadable::refused(ptx, 0, refusal).to_string();
            assert!(!line.contains('\n'));
            assert!(
                line.contains(refusal.code()) && line.contains("does not say which CUDA version"),
                "{line}"
            );
        }
    }
}
