//! Throttling with Linux Resource Control (Intel RDT MBA, AMD PQoS), as Foyer and Goglin do:
//! a control group under the resctrl mount whose `MB` schemata limits the memory bandwidth of
//! the tasks put in it, on every L3 domain.
//!
//! What the kernel reports decides the scale: the root group is unthrottled, so the values on
//! its `MB:` line are the maximum. 100 means percent (Intel: levels are rounded to
//! `info/MB/bandwidth_gran` and raised to `info/MB/min_bandwidth`); a larger maximum (2048 on
//! AMD) means the vendor's own scale, where levels are written as they are, as the paper does
//! on its EPYC (it found values above about 100 have no effect there).

use super::error::SensitivityError;
use crate::error::{Error, IoAction, Result};
use std::path::{Path, PathBuf};

/// What `info/MB` and the root `schemata` say about bandwidth allocation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MbInfo {
    pub(crate) min_bandwidth: u32,
    pub(crate) bandwidth_gran: u32,
    /// `info/MB/delay_linear` (1: the delay grows linearly with the value); absent on some
    /// kernels.
    pub(crate) delay_linear: Option<bool>,
    /// The unthrottled value (the root group's): 100 for percent, 2048 on AMD.
    pub(crate) max: u32,
    /// The L3 domain ids of the `MB:` line, in the kernel's order.
    pub(crate) domains: Vec<String>,
}

impl MbInfo {
    pub(crate) fn is_percent(&self) -> bool {
        self.max == 100
    }

    /// The value written for `level` (see the module documentation), or why it cannot be.
    pub(crate) fn value(&self, level: f64) -> Result<u32> {
        if !(level > 0.0 && level <= f64::from(self.max)) {
            return Err(SensitivityError::Level {
                level,
                max: self.max,
            }
            .into());
        }
        let v = if self.is_percent() {
            let gran = f64::from(self.bandwidth_gran.max(1));
            ((level / gran).round() * gran) as u32
        } else {
            level.round() as u32
        };
        Ok(v.clamp(self.min_bandwidth.max(1), self.max))
    }

    /// The `schemata` line giving every domain `value`: `MB:0=50;1=50`.
    pub(crate) fn schemata_line(&self, value: u32) -> String {
        let parts: Vec<String> = self
            .domains
            .iter()
            .map(|d| format!("{d}={value}"))
            .collect();
        format!("MB:{}\n", parts.join(";"))
    }
}

fn missing(root: &Path, what: &str) -> Error {
    SensitivityError::NoResctrl {
        root: root.into(),
        what: what.into(),
    }
    .into()
}

fn read_u32(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Reads `info/MB` and the root `schemata` under `root`.
pub(crate) fn probe(root: &Path) -> Result<MbInfo> {
    let info = root.join("info/MB");
    if !root.join("schemata").is_file() {
        return Err(missing(root, "resctrl is not mounted"));
    }
    if !info.is_dir() {
        return Err(missing(
            root,
            "resctrl has no memory bandwidth allocation (no info/MB)",
        ));
    }
    let field = |name: &str| {
        read_u32(&info.join(name))
            .ok_or_else(|| missing(root, &format!("cannot read a number from info/MB/{name}")))
    };
    let min_bandwidth = field("min_bandwidth")?;
    let bandwidth_gran = field("bandwidth_gran")?;
    let delay_linear = read_u32(&info.join("delay_linear")).map(|v| v == 1);
    let schemata = std::fs::read_to_string(root.join("schemata"))
        .map_err(|e| Error::io(IoAction::Read(""), root.join("schemata"), e))?;
    let line = schemata
        .lines()
        .find_map(|l| l.trim().strip_prefix("MB:"))
        .ok_or_else(|| missing(root, "the root schemata has no MB line"))?;
    let mut domains = Vec::new();
    let mut max = 0;
    for part in line.split(';').filter(|p| !p.trim().is_empty()) {
        let (id, v) = part
            .split_once('=')
            .ok_or_else(|| missing(root, &format!("unexpected MB schemata entry `{part}`")))?;
        domains.push(id.trim().to_string());
        max = max.max(v.trim().parse::<u32>().unwrap_or(0));
    }
    if domains.is_empty() || max == 0 {
        return Err(missing(root, "the root MB schemata names no domain"));
    }
    Ok(MbInfo {
        min_bandwidth,
        bandwidth_gran,
        delay_linear,
        max,
        domains,
    })
}

/// A control group that exists while this value lives: dropping it removes the directory,
/// on success, on error and after Ctrl-C (the caller stops on the signal flag and unwinds).
#[derive(Debug)]
pub(crate) struct Group {
    path: PathBuf,
}

impl Group {
    /// Creates `root/name`.
    pub(crate) fn create(root: &Path, name: &str) -> Result<Group> {
        let path = root.join(name);
        match std::fs::create_dir(&path) {
            Ok(()) => Ok(Group { path }),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                Err(SensitivityError::NeedsRoot { path, err: e }.into())
            }
            Err(e) => Err(Error::io(IoAction::Create("the resctrl group"), path, e)),
        }
    }

    pub(crate) fn tasks(&self) -> PathBuf {
        self.path.join("tasks")
    }

    /// Writes the group's `schemata`.
    pub(crate) fn set(&self, line: &str) -> Result<()> {
        let file = self.path.join("schemata");
        std::fs::write(&file, line).map_err(|e| Error::io(IoAction::Write(""), file, e))
    }

    /// Adds a task (process or thread id) to the group.
    pub(crate) fn add_task(&self, id: u32) -> Result<()> {
        use std::io::Write;
        let file = self.tasks();
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .and_then(|mut f| f.write_all(format!("{id}\n").as_bytes()))
            .map_err(|e| Error::io(IoAction::Write(""), file, e))
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // On resctrl an rmdir removes the group (its files are the kernel's) and moves its
        // tasks back to the root group. A plain directory (a fake tree in tests) still holds
        // the files written into it.
        if std::fs::remove_dir(&self.path).is_err() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fake resctrl tree: `info/MB` with the given values and a root schemata.
    pub(crate) fn fake_tree(
        name: &str,
        min: u32,
        gran: u32,
        linear: u32,
        schemata: &str,
    ) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("contention-resctrl-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("info/MB")).unwrap();
        std::fs::write(root.join("info/MB/min_bandwidth"), format!("{min}\n")).unwrap();
        std::fs::write(root.join("info/MB/bandwidth_gran"), format!("{gran}\n")).unwrap();
        std::fs::write(root.join("info/MB/delay_linear"), format!("{linear}\n")).unwrap();
        std::fs::write(root.join("schemata"), schemata).unwrap();
        root
    }

    #[test]
    fn intel_percent_scale_rounds_to_granularity() {
        let root = fake_tree(
            "intel",
            10,
            10,
            1,
            "    L3:0=7ff;1=7ff\n    MB:0=100;1=100\n",
        );
        let info = probe(&root).unwrap();
        assert!(info.is_percent());
        assert_eq!(info.domains, vec!["0", "1"]);
        assert_eq!(info.delay_linear, Some(true));
        assert_eq!(info.value(50.0).unwrap(), 50);
        assert_eq!(info.value(44.0).unwrap(), 40);
        assert_eq!(info.value(3.0).unwrap(), 10, "raised to min_bandwidth");
        assert!(info.value(120.0).is_err());
        assert_eq!(info.schemata_line(50), "MB:0=50;1=50\n");
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn amd_scale_writes_levels_as_they_are() {
        let root = fake_tree(
            "amd",
            0,
            1,
            0,
            "L3:0=ffff;1=ffff;2=ffff;3=ffff\nMB:0=2048;1=2048;2=2048;3=2048\n",
        );
        let info = probe(&root).unwrap();
        assert!(!info.is_percent());
        assert_eq!(info.max, 2048);
        assert_eq!(info.value(37.0).unwrap(), 37);
        assert_eq!(info.value(2048.0).unwrap(), 2048);
        assert_eq!(info.schemata_line(10), "MB:0=10;1=10;2=10;3=10\n");
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn group_writes_files_and_is_removed_on_drop() {
        let root = fake_tree("group", 10, 10, 1, "MB:0=100\n");
        let dir;
        {
            let g = Group::create(&root, "g1").unwrap();
            dir = g.path.clone();
            g.set("MB:0=30\n").unwrap();
            g.add_task(1234).unwrap();
            g.add_task(99).unwrap();
            assert_eq!(
                std::fs::read_to_string(dir.join("schemata")).unwrap(),
                "MB:0=30\n"
            );
            assert_eq!(std::fs::read_to_string(g.tasks()).unwrap(), "1234\n99\n");
        }
        assert!(!dir.exists(), "the group directory is removed on drop");
        assert!(root.join("schemata").exists(), "the root is left alone");
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn missing_resctrl_says_what_and_suggests_bandit() {
        let nowhere = std::env::temp_dir().join("contention-no-resctrl-here");
        let e = probe(&nowhere).unwrap_err().to_string();
        assert!(
            e.contains("not mounted") && e.contains("--backend bandit"),
            "{e}"
        );
        let root = fake_tree("nomb", 10, 10, 1, "L3:0=7ff\n");
        let e = probe(&root).unwrap_err().to_string();
        assert!(
            e.contains("no MB line") && e.contains("--backend bandit"),
            "{e}"
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}
