//! Which MPI this binary runs on, and who starts its ranks.
//!
//! An MPI job starts only when the launcher speaks the start-up protocol of the library the
//! binary was built against: Open MPI's `mpirun` starts Open MPI's ranks (its own daemons,
//! PMIx), MPICH's Hydra `mpiexec` starts MPICH's (PMI-1 through a file descriptor), and
//! `srun` starts either through the MPI plugin named by `--mpi` (`pmix` for Open MPI, `pmi2`
//! for MPICH). Under the other library's launcher every rank comes up alone, as a job of one.
//! So the launching process reads the library's own name ([`Library`], from
//! `MPI_Get_library_version`, which MPI allows before `MPI_Init`), picks a launcher that
//! speaks it (`choose`: the library's own, or srun with the right plugin), and a rank
//! refuses a launcher of the other library before `MPI_Init` (`foreign_launcher`) rather
//! than measure alone or wait for a peer that never comes.
//!
//! Everything here is plain data and pure functions of what the environment, `--version` and
//! `srun --mpi=list` say; [`crate::mpi::launch`] runs the programs, [`crate::mpi::world`] asks the
//! library.

use crate::error::Error;

/// The MPI families whose launchers differ. MVAPICH, Intel MPI and Cray MPICH are MPICH's
/// (Hydra's `mpiexec`, PMI under srun).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    OpenMpi,
    Mpich,
}

impl Family {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Family::OpenMpi => "Open MPI",
            Family::Mpich => "MPICH",
        }
    }

    /// The library's own launcher, as the messages name it.
    pub(crate) fn own_launcher(self) -> &'static str {
        match self {
            Family::OpenMpi => "Open MPI's mpirun",
            Family::Mpich => "MPICH's mpiexec (Hydra)",
        }
    }

    /// The command line that starts `n` ranks with the library's own launcher, for advice.
    pub(crate) fn own_line(self, n: usize) -> String {
        match self {
            Family::OpenMpi => format!("mpirun -np {n}"),
            Family::Mpich => format!("mpiexec -n {n}"),
        }
    }

    /// srun's MPI plugins that start this library's ranks, the preferred first: Open MPI
    /// talks PMIx (Debian's and most builds lack Slurm's PMI-2 support); MPICH's built-in
    /// client talks PMI-1/PMI-2, which Slurm's `pmi2` plugin serves, Cray MPICH `cray_shasta`.
    pub(crate) fn srun_plugins(self) -> &'static [&'static str] {
        match self {
            Family::OpenMpi => &["pmix", "pmix_v5", "pmix_v4", "pmix_v3", "pmix_v2"],
            Family::Mpich => &["pmi2", "cray_shasta", "pmix"],
        }
    }

    /// The launcher programs to look for on PATH, in order: the plain names a module system
    /// or a distribution's default puts first, then Debian's names for each library.
    fn launcher_programs(self) -> &'static [&'static str] {
        match self {
            Family::OpenMpi => &["mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.openmpi"],
            Family::Mpich => &[
                "mpiexec",
                "mpiexec.hydra",
                "mpirun",
                "mpiexec.mpich",
                "mpirun.mpich",
            ],
        }
    }
}

/// The MPI library this binary runs on, from what `MPI_Get_library_version` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Library {
    pub(crate) family: Option<Family>,
    /// Name and version, `Open MPI 4.1.4`, `MPICH 4.0.2`; the first line of an unknown one.
    pub(crate) name: String,
    /// The library's own words without how it was built: MPICH's string ends with its whole
    /// configure line and compiler flags (some 40 lines), which say nothing of the run.
    pub version: String,
}

impl Library {
    pub(crate) fn parse(raw: &str) -> Library {
        let raw = raw.trim_matches(|c: char| c == '\0' || c.is_whitespace());
        let version = raw
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty() && !is_build_line(l))
            .collect::<Vec<_>>()
            .join("\n");
        let family = if raw.contains("Open MPI") {
            Some(Family::OpenMpi)
        } else if ["MPICH", "MVAPICH", "Intel(R) MPI"]
            .iter()
            .any(|k| raw.to_ascii_uppercase().contains(&k.to_ascii_uppercase()))
        {
            Some(Family::Mpich)
        } else {
            None
        };
        let name = match family {
            Some(Family::OpenMpi) => after(raw, "Open MPI v")
                .or_else(|| after(raw, "Open MPI "))
                .map_or_else(|| "Open MPI".to_string(), |v| format!("Open MPI {v}")),
            Some(Family::Mpich) if raw.starts_with("MPICH Version:") => {
                after(raw, "MPICH Version:")
                    .map_or_else(|| "MPICH".into(), |v| format!("MPICH {v}"))
            }
            _ => raw.lines().next().unwrap_or("unknown").trim().to_string(),
        };
        Library {
            family,
            name,
            version,
        }
    }
}

/// The lines of a version string that say how the library was built (MPICH: `MPICH
/// configure:`, `MPICH CC:`, `MPICH CXX:`, `MPICH F77:`, `MPICH FC:`; MVAPICH alike).
fn is_build_line(line: &str) -> bool {
    let Some((key, _)) = line.split_once(':') else {
        return false;
    };
    let last = key.split_whitespace().last().unwrap_or("");
    ["configure", "CC", "CXX", "F77", "FC"].contains(&last)
}

/// The version word after `prefix`: `4.1.4` in `Open MPI v4.1.4, package: ...`.
fn after(raw: &str, prefix: &str) -> Option<String> {
    let rest = &raw[raw.find(prefix)? + prefix.len()..];
    let word: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// The dialect a launcher program speaks: its options, and the library it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Open MPI's `mpirun`/`mpiexec` (`-np`, `--host`, `--bind-to none`, `-x VAR`).
    OpenMpi,
    /// Hydra's `mpiexec` (MPICH, MVAPICH, Intel MPI: `-n`, `-hosts`, `-bind-to none`).
    Hydra,
}

impl Dialect {
    /// The dialect of a launcher from its `--version` output, `None` for another program.
    pub(crate) fn of_version(text: &str) -> Option<Dialect> {
        if text.contains("Open MPI") || text.contains("OpenRTE") {
            Some(Dialect::OpenMpi)
        } else if text.to_ascii_uppercase().contains("HYDRA") || text.contains("Intel(R) MPI") {
            Some(Dialect::Hydra)
        } else {
            None
        }
    }

    fn family(self) -> Family {
        match self {
            Dialect::OpenMpi => Family::OpenMpi,
            Dialect::Hydra => Family::Mpich,
        }
    }
}

/// How the job's ranks are started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Starter {
    /// An MPI library's own launcher: `program` (as found on PATH) speaking `dialect`.
    Own { program: String, dialect: Dialect },
    /// `srun`; `mpi` is the plugin passed as `--mpi` (`None`: srun's default, for a library
    /// of unknown family).
    Srun { mpi: Option<String> },
}

/// The launcher chosen for a job, and why (the plan says both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub(crate) starter: Starter,
    pub(crate) why: String,
}

/// What [`choose`] reads besides the library: the environment, and the two questions it may
/// ask programs (through closures, for tests).
pub(crate) struct Probe<'a> {
    pub(crate) var: &'a dyn Fn(&str) -> Option<String>,
    /// `PROGRAM --version` (stdout and stderr), `None` when it does not run.
    pub(crate) version_of: &'a dyn Fn(&str) -> Option<String>,
    /// `srun --mpi=list`, `None` when srun does not run.
    pub(crate) srun_mpi_list: &'a dyn Fn() -> Option<String>,
}

/// No launcher that can start this library's ranks (bad input, exit 2: install one, or ask
/// for another).
#[derive(Debug)]
pub(crate) enum ChoiceError {
    /// The library's own launcher is not on PATH; `seen` holds the launcher programs found
    /// and what they are (another library's).
    NoOwnLauncher {
        library: String,
        family: Option<Family>,
        seen: Vec<(String, String)>,
    },
    /// srun offers none of the plugins that start this library.
    NoSrunPlugin {
        library: String,
        needs: &'static [&'static str],
        offered: Vec<String>,
    },
}

contention_analysis::wrap!(Input: ChoiceError);

impl std::fmt::Display for ChoiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChoiceError::NoOwnLauncher {
                library,
                family,
                seen,
            } => {
                let own =
                    family.map_or("an MPI launcher (mpirun or mpiexec)", Family::own_launcher);
                write!(
                    f,
                    "this binary is built against {library}, whose ranks {own} starts"
                )?;
                if seen.is_empty() {
                    write!(f, "; none is on PATH")?;
                } else {
                    let others: Vec<String> = seen
                        .iter()
                        .map(|(p, what)| format!("`{p}` is {what}"))
                        .collect();
                    write!(
                        f,
                        "; on PATH {}, which would start every rank alone",
                        others.join(", ")
                    )?;
                }
                let install = match family {
                    Some(Family::Mpich) => "install MPICH's launcher (Debian: mpich)",
                    _ => "install Open MPI's launcher (Debian: openmpi-bin)",
                };
                write!(
                    f,
                    ": {install} or put its directory first on PATH, rebuild against the MPI at \
                     hand (docs/guide.md, \"Building for Open MPI or MPICH\"), or inside a Slurm \
                     allocation use --launcher srun"
                )
            }
            ChoiceError::NoSrunPlugin {
                library,
                needs,
                offered,
            } => write!(
                f,
                "srun here offers the MPI plugins {}, but {library} starts under {}: ask the \
                 administrators for one, or use --launcher mpirun (the library's own launcher)",
                if offered.is_empty() {
                    "(none listed by `srun --mpi=list`)".to_string()
                } else {
                    offered.join(", ")
                },
                needs.join(" or ")
            ),
        }
    }
}

impl std::error::Error for ChoiceError {}

/// The launcher for `library`'s ranks, as `--launcher` asks:
///
/// - `mpirun` (alias `mpiexec`): the library's own launcher, found on PATH by what its
///   `--version` says (a plain `mpirun` may be the other library's).
/// - `srun`: srun with the plugin the library needs ([`srun_plugin`]).
/// - `auto`: the library's own launcher; inside a Slurm allocation, Open MPI's `mpirun`
///   (which starts its daemons through the allocation's srun), and srun for MPICH.
///
/// Why not srun for Open MPI inside an allocation: started directly with `srun --mpi=pmix`,
/// Open MPI 4.1's start-up crashed in its TCP transport during `MPI_Init` about once in 20
/// runs on a loaded machine, where `mpirun` inside the same allocations did not fail in 100.
/// MPICH's Hydra, inside an allocation, makes its proxies call back to the launching host by
/// name, which fails where names do not resolve; srun's `pmi2` needs no name and no proxy.
pub(crate) fn choose(
    requested: Launcher,
    library: &Library,
    probe: &Probe,
) -> Result<Choice, ChoiceError> {
    let in_allocation = (probe.var)("SLURM_JOB_ID").is_some();
    let own = || find_own(library, probe);
    match requested {
        Launcher::Srun => srun(library, probe, "--launcher srun".into()),
        Launcher::Mpirun => own().map(|(starter, what)| Choice {
            starter,
            why: format!("--launcher mpirun: {what}"),
        }),
        Launcher::Auto => match library.family {
            Some(Family::Mpich) if in_allocation => srun(
                library,
                probe,
                format!(
                    "inside Slurm job {}: srun starts the ranks itself (Hydra's proxies would \
                     need every host name to resolve)",
                    (probe.var)("SLURM_JOB_ID").unwrap_or_default()
                ),
            )
            .or_else(|srun_err| {
                own()
                    .map(|(starter, what)| Choice {
                        starter,
                        why: format!("{what} (srun cannot: {srun_err})"),
                    })
                    .map_err(|_| srun_err)
            }),
            _ => own().map(|(starter, what)| Choice {
                starter,
                why: if in_allocation {
                    format!(
                        "{what}; inside Slurm job {} it starts its daemons with srun (`srun \
                         --mpi=pmix` starting the ranks directly sometimes crashed in Open \
                         MPI's start-up)",
                        (probe.var)("SLURM_JOB_ID").unwrap_or_default()
                    )
                } else {
                    what
                },
            }),
        },
    }
}

/// The library's own launcher on PATH, and a phrase saying what it is.
fn find_own(library: &Library, probe: &Probe) -> Result<(Starter, String), ChoiceError> {
    let programs: Vec<&str> = match library.family {
        Some(f) => f.launcher_programs().to_vec(),
        None => vec!["mpirun", "mpiexec"],
    };
    let mut seen: Vec<(String, String)> = Vec::new();
    for p in programs {
        let Some(text) = (probe.version_of)(p) else {
            continue;
        };
        let Some(dialect) = Dialect::of_version(&text) else {
            continue;
        };
        if library.family.is_none_or(|f| f == dialect.family()) {
            let what = format!(
                "`{p}`, {}, for {}",
                dialect.family().own_launcher(),
                library.name
            );
            return Ok((
                Starter::Own {
                    program: p.to_string(),
                    dialect,
                },
                what,
            ));
        }
        let first_line = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        let what = format!("{} ({first_line})", dialect.family().own_launcher());
        if !seen.iter().any(|(_, w)| *w == what) {
            seen.push((p.to_string(), what));
        }
    }
    Err(ChoiceError::NoOwnLauncher {
        library: library.name.clone(),
        family: library.family,
        seen,
    })
}

fn srun(library: &Library, probe: &Probe, why: String) -> Result<Choice, ChoiceError> {
    let mpi = srun_plugin(library, probe)?;
    let plugin = mpi.as_deref().map_or_else(
        || "srun's default MPI plugin".to_string(),
        |m| format!("--mpi={m}"),
    );
    Ok(Choice {
        starter: Starter::Srun { mpi },
        why: format!("{why}; {plugin} for {}", library.name),
    })
}

/// The plugin srun needs for `library`: `SLURM_MPI_TYPE` when the user set one the library
/// can use, else the first of the library's plugins ([`Family::srun_plugins`]) that `srun
/// --mpi=list` offers. Passed as `--mpi` whatever the site's `MpiDefault` (often `none`, which
/// starts no MPI library). `None` for a library of unknown family (srun's default).
pub(crate) fn srun_plugin(library: &Library, probe: &Probe) -> Result<Option<String>, ChoiceError> {
    let Some(family) = library.family else {
        return Ok(None);
    };
    let needs = family.srun_plugins();
    if let Some(user) = (probe.var)("SLURM_MPI_TYPE").filter(|t| needs.contains(&t.as_str())) {
        return Ok(Some(user));
    }
    let Some(list) = (probe.srun_mpi_list)() else {
        // Not listed (an srun that cannot tell): the library's usual plugin.
        return Ok(Some(needs[0].to_string()));
    };
    let offered = mpi_list(&list);
    needs
        .iter()
        .find(|n| offered.iter().any(|o| o == *n))
        .map(|n| Some(n.to_string()))
        .ok_or_else(|| ChoiceError::NoSrunPlugin {
            library: library.name.clone(),
            needs,
            offered,
        })
}

/// The plugin names in `srun --mpi=list`'s output (`MPI plugin types are...` then one per
/// line, older versions prefixed with `srun: `; 22.05 adds `specific pmix plugin versions
/// available: pmix_v4`).
pub(crate) fn mpi_list(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches("srun:").trim();
        let words: &str = match line.split_once(':') {
            Some((_, rest)) if line.starts_with("specific") => rest,
            Some(_) => continue,
            None if line.contains(' ') => continue,
            None => line,
        };
        for w in words
            .split([',', ' '])
            .map(str::trim)
            .filter(|w| !w.is_empty())
        {
            if !names.iter().any(|n| n == w) {
                names.push(w.to_string());
            }
        }
    }
    names
}

/// Who started this process, from the variables launchers give their ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StartedBy {
    /// Open MPI's mpirun (its daemons set `OMPI_COMM_WORLD_SIZE` and `OMPI_MCA_orte_*`).
    OpenMpi,
    /// Hydra's mpiexec (`PMI_FD` or `PMI_PORT`, and `MPI_LOCALNRANKS`).
    Hydra,
    /// srun, with the plugin it used (`SLURM_MPI_TYPE`, which srun sets in every task).
    Srun { mpi: Option<String> },
    /// srun with no MPI plugin (`--mpi=none`, or the site's `MpiDefault=none`): no
    /// `SLURM_MPI_TYPE` but `none`, and no PMI or PMIx variable for MPI to start from.
    SrunWithoutMpi,
    /// Another PMIx launcher (`PMIX_RANK` alone: prrte, Flux).
    Pmix,
    /// No launcher: a singleton.
    Nothing,
}

impl StartedBy {
    pub(crate) fn detect(var: impl Fn(&str) -> Option<String>) -> StartedBy {
        let has = |k: &str| var(k).is_some();
        if has("OMPI_COMM_WORLD_SIZE") && (has("OMPI_MCA_orte_launch") || has("OMPI_MCA_ess")) {
            StartedBy::OpenMpi
        } else if has("MPI_LOCALNRANKS") && (has("PMI_FD") || has("PMI_PORT")) {
            StartedBy::Hydra
        } else if has("SLURM_STEP_ID") && has("SLURM_STEP_NUM_TASKS") {
            let mpi = var("SLURM_MPI_TYPE").filter(|m| m != "none");
            let pmi = ["PMIX_RANK", "PMI_RANK", "PMI_FD", "PMI_PORT"]
                .iter()
                .any(|k| has(k));
            if mpi.is_none() && !pmi {
                StartedBy::SrunWithoutMpi
            } else {
                StartedBy::Srun { mpi }
            }
        } else if has("OMPI_COMM_WORLD_SIZE") {
            StartedBy::OpenMpi
        } else if has("PMIX_RANK") {
            StartedBy::Pmix
        } else if has("PMI_FD") || has("PMI_PORT") {
            StartedBy::Hydra
        } else {
            StartedBy::Nothing
        }
    }

    /// The launcher as the trace records it.
    pub(crate) fn describe(&self) -> String {
        match self {
            StartedBy::OpenMpi => "Open MPI mpirun".into(),
            StartedBy::Hydra => "Hydra mpiexec".into(),
            StartedBy::Srun { mpi: Some(m) } => format!("srun --mpi={m}"),
            StartedBy::Srun { mpi: None } => "srun".into(),
            StartedBy::SrunWithoutMpi => "srun --mpi=none".into(),
            StartedBy::Pmix => "a PMIx launcher".into(),
            StartedBy::Nothing => "none (a singleton)".into(),
        }
    }

    /// The family whose ranks this launcher starts, where only one can.
    fn family(&self) -> Option<Family> {
        match self {
            StartedBy::OpenMpi => Some(Family::OpenMpi),
            StartedBy::Hydra => Some(Family::Mpich),
            _ => None,
        }
    }
}

/// The launcher as a trace records it: [`StartedBy::describe`], and the Slurm job it ran in.
pub(crate) fn launcher_record(var: impl Fn(&str) -> Option<String>) -> String {
    let started = StartedBy::detect(&var).describe();
    match var("SLURM_JOB_ID") {
        Some(job) => format!("{started}, in Slurm job {job}"),
        None => started,
    }
}

/// How many ranks the launcher says the job has, where it says so.
pub(crate) fn announced_size(var: impl Fn(&str) -> Option<String>) -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"]
        .iter()
        .find_map(|k| var(k)?.trim().parse().ok())
}

/// The refusal, before `MPI_Init`, of a launcher that starts the other library's ranks:
/// this rank would come up alone (a job of one), measure nothing and leave its peer waiting.
/// srun without an MPI plugin starts no library's ranks (Open MPI aborts in `MPI_Init`,
/// "not built with SLURM's PMI support"; MPICH's ranks come up alone): refused too, naming
/// the plugin to ask for.
pub(crate) fn foreign_launcher(library: &Library, started: &StartedBy) -> Option<Error> {
    let family = library.family?;
    if *started == StartedBy::SrunWithoutMpi {
        return Some(Error::Input(format!(
            "this binary is built against {} but was started by srun with no MPI plugin \
             (--mpi=none, or the site's MpiDefault), which starts no MPI library's ranks: \
             start it with `srun --mpi={}`, or without a launcher (it picks one by itself)",
            library.name,
            family.srun_plugins()[0]
        )));
    }
    let theirs = started.family()?;
    (family != theirs).then(|| {
        Error::Input(format!(
            "this binary is built against {} but was started by {}, which starts {}'s ranks: \
             each rank would come up alone. Start it without a launcher (it finds {} by \
             itself) or with that launcher (`{}`), or use a build for {} (docs/guide.md, \"Building \
             for Open MPI or MPICH\")",
            library.name,
            theirs.own_launcher(),
            theirs.name(),
            family.own_launcher(),
            family.own_line(2),
            theirs.name()
        ))
    })
}

/// The error when the launcher announced `announced` ranks but MPI sees `got`: they do not
/// share a start-up protocol (an srun plugin the library does not speak, typically).
pub(crate) fn size_mismatch(
    library: &Library,
    started: &StartedBy,
    announced: usize,
    got: usize,
) -> Error {
    let fix = match (started, library.family) {
        (StartedBy::Srun { .. }, Some(f)) => format!(
            "start it with `srun --mpi={}`, or without a launcher (it picks one by itself)",
            f.srun_plugins()[0]
        ),
        (_, Some(f)) => format!(
            "start it with {} (`{}`), or without a launcher (it picks one by itself)",
            f.own_launcher(),
            f.own_line(announced)
        ),
        (_, None) => "start it without a launcher (it picks one by itself)".into(),
    };
    Error::Input(format!(
        "{} started {announced} processes, but the MPI library ({}) sees {got} rank(s) in \
         its job: they do not speak the same start-up protocol; {fix}",
        started.describe(),
        library.name
    ))
}

/// An environment of `pairs`, as the functions here read one, for tests.
/// How `measure` starts its ranks from a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Launcher {
    /// The MPI library's own launcher; inside a Slurm allocation, mpirun for Open MPI and
    /// srun for MPICH.
    Auto,
    /// The MPI library's own launcher: Open MPI's mpirun, MPICH's mpiexec (Hydra).
    #[cfg_attr(feature = "cli", value(alias = "mpiexec"))]
    Mpirun,
    /// srun (Slurm), with the MPI plugin the library needs (--mpi).
    Srun,
}

#[cfg(test)]
pub(crate) fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use crate::mpi::flavour::*;

    const OPEN_MPI: &str =
        "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\0";
    const MPICH: &str = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT \
        2022\nMPICH ABI:\t14:2:2\nMPICH Device:\tch4:ucx\nMPICH configure:\t--build=x86_64-linux-gnu \
        --prefix=/usr --with-device=ch4:ucx --with-pm=hydra\nMPICH CC:\tgcc  -g -O2\nMPICH \
        CXX:\tg++ -g -O2\nMPICH F77:\tgfortran -O2\nMPICH FC:\tgfortran -O2\n";

    #[test]
    fn the_library_is_named_and_shortened() {
        let o = Library::parse(OPEN_MPI);
        assert_eq!(o.family, Some(Family::OpenMpi));
        assert_eq!(o.name, "Open MPI 4.1.4");
        assert_eq!(o.version, OPEN_MPI.trim_end_matches('\0'));
        let m = Library::parse(MPICH);
        assert_eq!(m.family, Some(Family::Mpich));
        assert_eq!(m.name, "MPICH 4.0.2");
        // The build's lines are gone, what the library is stays.
        assert_eq!(m.version.lines().count(), 4, "{}", m.version);
        assert!(
            m.version.ends_with("MPICH Device:\tch4:ucx"),
            "{}",
            m.version
        );
        assert!(!m.version.contains("configure") && !m.version.contains("gfortran"));
        let i = Library::parse("Intel(R) MPI Library 2021.6 for Linux* OS\n");
        assert_eq!(i.family, Some(Family::Mpich));
        assert_eq!(i.name, "Intel(R) MPI Library 2021.6 for Linux* OS");
        let u = Library::parse("Some MPI 1.0");
        assert_eq!((u.family, u.name.as_str()), (None, "Some MPI 1.0"));
    }

    const OMPI_RUN: &str =
        "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n";
    const HYDRA_RUN: &str =
        "HYDRA build details:\n    Version:                                 4.0.2\n";

    /// A machine with Debian's two libraries: `mpirun`/`mpiexec` are Open MPI's (the
    /// default alternative), `mpiexec.mpich` and `mpirun.mpich` Hydra; srun offers `plugins`.
    fn debian<'a>(
        env: &'a dyn Fn(&str) -> Option<String>,
        plugins: &'a dyn Fn() -> Option<String>,
    ) -> Probe<'a> {
        Probe {
            var: env,
            version_of: &|p| match p {
                "mpirun" | "mpiexec" | "mpirun.openmpi" | "mpiexec.openmpi" => {
                    Some(OMPI_RUN.into())
                }
                "mpiexec.mpich" | "mpirun.mpich" => Some(HYDRA_RUN.into()),
                _ => None,
            },
            srun_mpi_list: plugins,
        }
    }

    const LIST_22_05: &str = "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n";

    #[test]
    fn srun_lists_its_plugins() {
        assert_eq!(
            mpi_list(LIST_22_05),
            ["pmix", "none", "cray_shasta", "pmi2", "pmix_v4"]
        );
        assert_eq!(
            mpi_list("srun: MPI types are...\nsrun: none\nsrun: pmi2\n"),
            ["none", "pmi2"]
        );
    }

    #[test]
    fn each_library_gets_its_own_launcher() {
        let none = vars(&[]);
        let list = || Some(LIST_22_05.to_string());
        let p = debian(&none, &list);
        let o = choose(Launcher::Auto, &Library::parse(OPEN_MPI), &p).unwrap();
        assert_eq!(
            o.starter,
            Starter::Own {
                program: "mpirun".into(),
                dialect: Dialect::OpenMpi
            }
        );
        // MPICH's binary does not take the default `mpirun`, which is Open MPI's.
        let m = choose(Launcher::Auto, &Library::parse(MPICH), &p).unwrap();
        assert_eq!(
            m.starter,
            Starter::Own {
                program: "mpiexec.mpich".into(),
                dialect: Dialect::Hydra
            }
        );
        assert!(m.why.contains("MPICH 4.0.2"), "{}", m.why);
        let asked = choose(Launcher::Mpirun, &Library::parse(MPICH), &p).unwrap();
        assert_eq!(asked.starter, m.starter);
    }

    #[test]
    fn inside_an_allocation_open_mpi_keeps_mpirun_and_mpich_takes_srun() {
        let job = vars(&[("SLURM_JOB_ID", "7")]);
        let list = || Some(LIST_22_05.to_string());
        let p = debian(&job, &list);
        let o = choose(Launcher::Auto, &Library::parse(OPEN_MPI), &p).unwrap();
        assert!(matches!(o.starter, Starter::Own { .. }), "{o:?}");
        assert!(
            o.why.contains("Slurm job 7") && o.why.contains("crashed"),
            "{}",
            o.why
        );
        let m = choose(Launcher::Auto, &Library::parse(MPICH), &p).unwrap();
        assert_eq!(
            m.starter,
            Starter::Srun {
                mpi: Some("pmi2".into())
            }
        );
        // Asked for srun, Open MPI gets PMIx, whatever MpiDefault says.
        let s = choose(Launcher::Srun, &Library::parse(OPEN_MPI), &p).unwrap();
        assert_eq!(
            s.starter,
            Starter::Srun {
                mpi: Some("pmix".into())
            }
        );
        assert!(s.why.contains("--mpi=pmix for Open MPI 4.1.4"), "{}", s.why);
        // srun without pmi2: MPICH falls back to Hydra, saying why.
        let bare = || Some("MPI plugin types are...\n\tnone\n".to_string());
        let p = debian(&job, &bare);
        let m = choose(Launcher::Auto, &Library::parse(MPICH), &p).unwrap();
        assert!(matches!(m.starter, Starter::Own { .. }), "{m:?}");
        assert!(m.why.contains("srun cannot"), "{}", m.why);
        let e = choose(Launcher::Srun, &Library::parse(OPEN_MPI), &p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("offers the MPI plugins none")
                && e.contains("pmix")
                && e.contains("--launcher mpirun"),
            "{e}"
        );
    }

    #[test]
    fn the_users_srun_plugin_is_kept_when_the_library_speaks_it() {
        let list = || Some(LIST_22_05.to_string());
        let env = vars(&[("SLURM_MPI_TYPE", "pmix_v4")]);
        let p = debian(&env, &list);
        let s = srun_plugin(&Library::parse(OPEN_MPI), &p).unwrap();
        assert_eq!(s.as_deref(), Some("pmix_v4"));
        // `none` starts no library: replaced.
        let env = vars(&[("SLURM_MPI_TYPE", "none")]);
        let p = debian(&env, &list);
        assert_eq!(
            srun_plugin(&Library::parse(MPICH), &p).unwrap().as_deref(),
            Some("pmi2")
        );
    }

    #[test]
    fn no_launcher_of_the_library_is_refused_naming_what_is_there() {
        let none = vars(&[]);
        let list = || None;
        let only_open_mpi = Probe {
            var: &none,
            version_of: &|p| (p == "mpirun").then(|| OMPI_RUN.to_string()),
            srun_mpi_list: &list,
        };
        let e = choose(Launcher::Auto, &Library::parse(MPICH), &only_open_mpi)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("this binary is built against MPICH 4.0.2")
                && e.contains("`mpirun` is Open MPI's mpirun (mpirun (Open MPI) 4.1.4)")
                && e.contains("Debian: mpich")
                && e.contains("--launcher srun"),
            "{e}"
        );
    }

    #[test]
    fn ranks_know_who_started_them() {
        let mpirun = vars(&[
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("OMPI_MCA_orte_launch", "1"),
            ("PMIX_RANK", "0"),
            ("SLURM_STEP_ID", "0"),
            ("SLURM_STEP_NUM_TASKS", "2"),
            ("SLURM_JOB_ID", "12"),
        ]);
        assert_eq!(StartedBy::detect(&mpirun), StartedBy::OpenMpi);
        assert_eq!(launcher_record(&mpirun), "Open MPI mpirun, in Slurm job 12");
        let hydra = vars(&[
            ("PMI_FD", "6"),
            ("PMI_RANK", "0"),
            ("PMI_SIZE", "2"),
            ("MPI_LOCALNRANKS", "1"),
        ]);
        assert_eq!(StartedBy::detect(&hydra), StartedBy::Hydra);
        assert_eq!(announced_size(&hydra), Some(2));
        let pmi2 = vars(&[
            ("PMI_FD", "11"),
            ("PMI_SIZE", "2"),
            ("SLURM_MPI_TYPE", "pmi2"),
            ("SLURM_STEP_ID", "0"),
            ("SLURM_STEP_NUM_TASKS", "2"),
        ]);
        assert_eq!(
            StartedBy::detect(&pmi2),
            StartedBy::Srun {
                mpi: Some("pmi2".into())
            }
        );
        assert_eq!(StartedBy::detect(vars(&[])), StartedBy::Nothing);
        assert_eq!(announced_size(vars(&[])), None);
    }

    #[test]
    fn the_other_librarys_launcher_is_refused_before_mpi_starts() {
        let mpich = Library::parse(MPICH);
        let e = foreign_launcher(&mpich, &StartedBy::OpenMpi)
            .expect("refused")
            .to_string();
        assert!(
            e.contains("built against MPICH 4.0.2 but was started by Open MPI's mpirun")
                && e.contains("`mpiexec -n 2`"),
            "{e}"
        );
        let open = Library::parse(OPEN_MPI);
        assert!(foreign_launcher(&open, &StartedBy::Hydra).is_some());
        assert!(foreign_launcher(&open, &StartedBy::OpenMpi).is_none());
        assert!(foreign_launcher(&mpich, &StartedBy::Srun { mpi: None }).is_none());
        // srun with MpiDefault=none: no plugin, no PMI variable.
        let bare = vars(&[("SLURM_STEP_ID", "0"), ("SLURM_STEP_NUM_TASKS", "2")]);
        assert_eq!(StartedBy::detect(&bare), StartedBy::SrunWithoutMpi);
        let e = foreign_launcher(&open, &StartedBy::SrunWithoutMpi)
            .expect("refused")
            .to_string();
        assert!(
            e.contains("with no MPI plugin") && e.contains("`srun --mpi=pmix`"),
            "{e}"
        );
        // A mismatch found after MPI_Init names the plugin to use, not the launcher it was.
        let e = size_mismatch(
            &mpich,
            &StartedBy::Srun {
                mpi: Some("none".into()),
            },
            2,
            1,
        )
        .to_string();
        assert!(
            e.starts_with("srun --mpi=none started 2 processes") && e.contains("`srun --mpi=pmi2`"),
            "{e}"
        );
    }
}
