//! Which point-to-point stack the MPI library picked, as a rank sees it after `MPI_Init`: the
//! fabric the messages crossed, recorded in every trace so that two runs can be compared
//! knowing they crossed the same one.
//!
//! Open MPI chooses at start-up (a site's `openmpi-mca-params.conf`, the `OMPI_MCA_*`
//! variables, what the node offers) among its PMLs (`ob1` over its BTLs: `vader` shared
//! memory, `tcp`; `cm` over an MTL: `ofi` for libfabric's Slingshot, EFA, Omni-Path; `ucx`
//! for InfiniBand), and its tool information interface (`MPI_T`) gives the include and
//! exclude lists asked for, not what was picked. What was picked stays loaded: Open MPI opens
//! every component of a framework and closes those it does not select, so after `MPI_Init`
//! the one `mca_pml_*` module of the process is the PML in use (`/proc/self/maps`; Debian's
//! and most sites' builds load components as modules; a static build shows none, and the
//! record then says it could not tell). MPICH names its device and netmod in
//! `MPI_Get_library_version` (`MPICH Device: ch4:ucx`), chosen when it was built.

use crate::trace::MpiStack;

/// The prefixes of the environment variables that choose a stack: Open MPI's PML, MTL and
/// BTL selection and UCX PML options, UCX's transports and devices, libfabric's provider,
/// MPICH's CH4 netmod and shared-memory options.
const CHOOSING: [&str; 7] = [
    "OMPI_MCA_pml",
    "OMPI_MCA_mtl",
    "OMPI_MCA_btl",
    "UCX_TLS",
    "UCX_NET_DEVICES",
    "FI_PROVIDER",
    "MPIR_CVAR_CH4",
];

/// The stack of this process: its library `version` text (`MPI_Get_library_version`), its
/// mapped modules and its environment.
pub fn this_process(version: &str) -> MpiStack {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let vars: Vec<(String, String)> = std::env::vars().collect();
    detect(version, &maps, &vars)
}

/// The stack from a library's `version` text, a process's `maps` (the format of
/// `/proc/PID/maps`) and its environment `vars`.
pub(crate) fn detect(version: &str, maps: &str, vars: &[(String, String)]) -> MpiStack {
    let mut forced_by: Vec<String> = vars
        .iter()
        .filter(|(k, _)| CHOOSING.iter().any(|p| k.starts_with(p)))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    forced_by.sort();
    // UCX's and libfabric's own choice of transport is part of the fabric: said in the
    // summary when set (`UCX_TLS=tcp,self` is TCP, not shared memory).
    let var = |name: &str| {
        vars.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| format!(", {name}={v}"))
            .unwrap_or_default()
    };
    let under = |layer: &str| match layer {
        "ucx" => var("UCX_TLS"),
        "ofi" => var("FI_PROVIDER"),
        _ => String::new(),
    };
    if let Some(device) = mpich_device(version) {
        let netmod = device.rsplit(':').next().unwrap_or("").to_string();
        return MpiStack {
            summary: format!("MPICH {device}{}", under(&netmod)),
            device: Some(device),
            forced_by,
            read_from: "the library's version text (MPICH Device)".into(),
            pml: None,
            mtl: None,
            btls: Vec::new(),
        };
    }
    let modules = |framework: &str| -> Vec<String> {
        let mut found: Vec<String> = maps
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .filter_map(|path| {
                let file = path.rsplit('/').next()?;
                let name = file
                    .strip_prefix("mca_")?
                    .strip_prefix(framework)?
                    .strip_prefix('_')?
                    .strip_suffix(".so")?;
                (!name.is_empty()).then(|| name.to_string())
            })
            .collect();
        found.sort();
        found.dedup();
        found
    };
    let (pmls, mtls, btls) = (modules("pml"), modules("mtl"), modules("btl"));
    let open_mpi = version.contains("Open MPI");
    let pml = (pmls.len() == 1).then(|| pmls[0].clone());
    let mtl = (mtls.len() == 1).then(|| mtls[0].clone());
    let summary = match (&pml, open_mpi) {
        (Some(p), _) if p == "cm" => {
            let m = mtl.as_deref().unwrap_or("unknown");
            format!("Open MPI pml cm, mtl {m}{}", under(m))
        }
        (Some(p), _) if p == "ob1" => format!("Open MPI pml ob1 (btl {})", btls.join(",")),
        (Some(p), _) => format!("Open MPI pml {p}{}", under(p)),
        (None, true) if pmls.is_empty() => {
            "Open MPI, its components not visible (a static build?): stack unknown".into()
        }
        (None, true) => format!("Open MPI, several PMLs loaded ({})", pmls.join(",")),
        (None, false) => "unknown".into(),
    };
    MpiStack {
        summary,
        pml,
        mtl,
        btls: if open_mpi { btls } else { Vec::new() },
        device: None,
        forced_by,
        read_from: "the library's components loaded in the process (/proc/self/maps)".into(),
    }
}

/// MPICH's `Device:` line of its version text.
fn mpich_device(version: &str) -> Option<String> {
    version.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("MPICH Device:")?;
        let d = rest.trim();
        (!d.is_empty()).then(|| d.to_string())
    })
}

/// The stack as the plan and the log say it: the summary, and what forced it.
pub fn describe(s: &MpiStack) -> String {
    if s.forced_by.is_empty() {
        s.summary.clone()
    } else {
        format!("{} (chosen by {})", s.summary, s.forced_by.join(" "))
    }
}

/// What `--dry-run` can say before any rank starts: the library picks its stack when the
/// job starts, and the variables of this environment that will steer it.
pub(crate) fn planned(library: &str) -> String {
    let vars: Vec<(String, String)> = std::env::vars().collect();
    let forced = detect("", "", &vars).forced_by;
    format!(
        "picked by {library} when the job starts, recorded in the trace (mpi.stack){}",
        if forced.is_empty() {
            "; nothing in this environment forces one".to_string()
        } else {
            format!("; this environment sets {}", forced.join(" "))
        }
    )
}

#[cfg(test)]
mod tests {
    use crate::mpi::stack::*;

    const OPEN_MPI: &str = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4";

    /// The mapped modules of an Open MPI process, as `/proc/self/maps` lists them.
    fn maps(modules: &[&str]) -> String {
        modules
            .iter()
            .map(|m| {
                format!(
                    "7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 \
                     /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_{m}.so\n"
                )
            })
            .collect()
    }

    fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn open_mpi_s_pml_and_its_transports_come_from_the_modules_it_kept() {
        // Seen on Open MPI 4.1.4 under each stack forced by its variables.
        let ob1 = detect(
            OPEN_MPI,
            &maps(&[
                "pml_ob1",
                "btl_sm",
                "btl_vader",
                "btl_tcp",
                "btl_self",
                "btl_self",
            ]),
            &[],
        );
        assert_eq!(ob1.summary, "Open MPI pml ob1 (btl self,sm,tcp,vader)");
        let cm = detect(
            OPEN_MPI,
            &maps(&["mtl_ofi", "pml_cm", "btl_sm", "btl_self"]),
            &vars(&[
                ("OMPI_MCA_pml", "cm"),
                ("OMPI_MCA_mtl", "ofi"),
                ("HOME", "/root"),
            ]),
        );
        assert_eq!(cm.summary, "Open MPI pml cm, mtl ofi");
        assert_eq!(
            (cm.pml.as_deref(), cm.mtl.as_deref()),
            (Some("cm"), Some("ofi"))
        );
        assert_eq!(cm.forced_by, ["OMPI_MCA_mtl=ofi", "OMPI_MCA_pml=cm"]);
        assert_eq!(
            describe(&cm),
            "Open MPI pml cm, mtl ofi (chosen by OMPI_MCA_mtl=ofi OMPI_MCA_pml=cm)"
        );
        let ucx = detect(OPEN_MPI, &maps(&["pml_ucx", "btl_self"]), &[]);
        assert_eq!(ucx.summary, "Open MPI pml ucx");
        let tcp = vars(&[("UCX_TLS", "tcp,self")]);
        let ucx = detect(OPEN_MPI, &maps(&["pml_ucx", "btl_self"]), &tcp);
        assert_eq!(ucx.summary, "Open MPI pml ucx, UCX_TLS=tcp,self");
        // A static build maps no module: said, not guessed.
        let none = detect(OPEN_MPI, "", &[]);
        assert!(none.summary.contains("stack unknown") && none.pml.is_none());
    }

    #[test]
    fn mpich_s_device_comes_from_its_version_text() {
        let version = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT \
                       2022\nMPICH ABI:\t14:2:2\nMPICH Device:\tch4:ucx";
        let s = detect(version, "", &vars(&[("UCX_TLS", "sm,self")]));
        assert_eq!(s.summary, "MPICH ch4:ucx, UCX_TLS=sm,self");
        assert_eq!(s.device.as_deref(), Some("ch4:ucx"));
        assert_eq!(s.forced_by, ["UCX_TLS=sm,self"]);
    }
}
