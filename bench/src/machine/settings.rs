//! The node's settings that change measured memory bandwidth, read from `/sys` and `/proc`
//! so that every trace says under which conditions it was taken, and the plan warns about
//! the ones that spoil a measurement.
//!
//! Everything is read below a root directory (`/` on a real node), so tests run on fake
//! trees.

use crate::trace::MachineSettings;
use std::collections::BTreeMap;
use std::path::Path;

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel))
        .ok()
        .map(|s| s.trim().to_string())
}

/// The bracketed choice of a sysfs selector: `always [madvise] never` gives `madvise`.
fn selected(text: &str) -> Option<String> {
    let start = text.find('[')?;
    let end = text[start..].find(']')? + start;
    Some(text[start + 1..end].to_string())
}

/// Number of entries of a kernel list (`0-3,8,10-11` has 7); `None` when malformed.
pub(crate) fn list_len(list: &str) -> Option<u32> {
    let mut n = 0;
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => b.parse::<u32>().ok()?.checked_sub(a.parse().ok()?)? + 1,
            None => {
                part.parse::<u32>().ok()?;
                1
            }
        };
    }
    Some(n)
}

/// Reads the settings below `root`; `numa_per_socket` comes from hwloc (sub-NUMA clustering
/// is more than one node per socket).
pub(crate) fn read_settings(root: &Path, numa_per_socket: Option<u32>) -> MachineSettings {
    let status = read(root, "proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    let mut cpu_governors = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(root.join("sys/devices/system/cpu")) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_cpu = name
                .strip_prefix("cpu")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !is_cpu {
                continue;
            }
            if let Ok(g) = std::fs::read_to_string(e.path().join("cpufreq/scaling_governor")) {
                *cpu_governors.entry(g.trim().to_string()).or_insert(0) += 1;
            }
        }
    }
    let cpus_allowed = field("Cpus_allowed_list");
    let mems_allowed = field("Mems_allowed_list");
    let cpus_online = read(root, "sys/devices/system/cpu/online");
    let mems_online = read(root, "sys/devices/system/node/online");
    let fewer = |allowed: &Option<String>, online: &Option<String>| match (allowed, online) {
        (Some(a), Some(o)) => matches!((list_len(a), list_len(o)), (Some(a), Some(o)) if a < o),
        _ => false,
    };
    MachineSettings {
        transparent_hugepages: read(root, "sys/kernel/mm/transparent_hugepage/enabled")
            .as_deref()
            .and_then(selected),
        numa_balancing: read(root, "proc/sys/kernel/numa_balancing")
            .and_then(|v| v.parse::<u32>().ok())
            .map(|v| v != 0),
        cpu_governors,
        sub_numa_clustering: numa_per_socket.map(|n| n > 1),
        restricted_cpuset: fewer(&cpus_allowed, &cpus_online) || fewer(&mems_allowed, &mems_online),
        cpus_allowed,
        cpus_online,
        mems_allowed,
        mems_online,
    }
}

/// One line per setting worth a warning before the run, each with its fix.
pub(crate) fn warnings(s: &MachineSettings) -> Vec<String> {
    let mut w = Vec::new();
    if s.numa_balancing == Some(true) {
        w.push(
            "automatic NUMA balancing is on: the kernel may migrate bound pages during the run \
             (as root: `sysctl kernel.numa_balancing=0`)"
                .to_string(),
        );
    }
    let slow: Vec<&str> = s
        .cpu_governors
        .keys()
        .map(String::as_str)
        .filter(|g| *g != "performance")
        .collect();
    if !slow.is_empty() {
        w.push(format!(
            "CPU frequency governor {}: core clocks may change during the run (as root: \
             `cpupower frequency-set -g performance`)",
            slow.join(", ")
        ));
    }
    if s.restricted_cpuset {
        w.push(format!(
            "this process's cpuset is restricted (CPUs {} of {}, NUMA nodes {} of {}): hidden \
             cores and nodes are not measured; in a batch job ask for the whole node \
             (`--exclusive`)",
            s.cpus_allowed.as_deref().unwrap_or("?"),
            s.cpus_online.as_deref().unwrap_or("?"),
            s.mems_allowed.as_deref().unwrap_or("?"),
            s.mems_online.as_deref().unwrap_or("?"),
        ));
    }
    w
}

/// The settings as one line of the plan.
pub(crate) fn describe(s: &MachineSettings) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
    let flag = |v: Option<bool>| v.map_or("?", |b| if b { "on" } else { "off" });
    let governors = if s.cpu_governors.is_empty() {
        "?".to_string()
    } else {
        s.cpu_governors
            .iter()
            .map(|(g, n)| format!("{g} x{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "transparent huge pages {}, NUMA balancing {}, governor {governors}, sub-NUMA \
         clustering {}, CPUs allowed {}",
        opt(&s.transparent_hugepages),
        flag(s.numa_balancing),
        flag(s.sub_numa_clustering),
        opt(&s.cpus_allowed),
    )
}

#[cfg(test)]
mod tests {
    use crate::machine::settings::*;
    use std::fs;

    fn tree(name: &str) -> std::path::PathBuf {
        let root =
            std::env::temp_dir().join(format!("contention-settings-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        root
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn reads_a_restricted_batch_node() {
        let root = tree("batch");
        write(
            &root,
            "sys/kernel/mm/transparent_hugepage/enabled",
            "always [madvise] never\n",
        );
        write(&root, "proc/sys/kernel/numa_balancing", "1\n");
        write(&root, "sys/devices/system/cpu/online", "0-71\n");
        write(&root, "sys/devices/system/node/online", "0-3\n");
        for (cpu, g) in [(0, "performance"), (1, "powersave"), (2, "powersave")] {
            write(
                &root,
                &format!("sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"),
                &format!("{g}\n"),
            );
        }
        write(
            &root,
            "sys/devices/system/cpu/cpufreq/policy0/scaling_governor",
            "x",
        );
        write(
            &root,
            "proc/self/status",
            "Name:\tcontention\nCpus_allowed_list:\t0-17\nMems_allowed_list:\t0-1\n",
        );
        let s = read_settings(&root, Some(2));
        assert_eq!(s.transparent_hugepages.as_deref(), Some("madvise"));
        assert_eq!(s.numa_balancing, Some(true));
        assert_eq!(s.sub_numa_clustering, Some(true));
        assert_eq!(s.cpu_governors.get("powersave"), Some(&2));
        assert_eq!(s.cpu_governors.get("performance"), Some(&1));
        assert_eq!(s.cpu_governors.len(), 2, "cpufreq/ is not a CPU");
        assert!(s.restricted_cpuset);
        let w = warnings(&s).join("\n");
        assert!(w.contains("numa_balancing=0"), "{w}");
        assert!(w.contains("governor powersave"), "{w}");
        assert!(w.contains("CPUs 0-17 of 0-71"), "{w}");
        let line = describe(&s);
        assert!(line.contains("NUMA balancing on") && line.contains("clustering on"));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_whole_quiet_node_has_no_warning_and_missing_files_are_unknown() {
        let root = tree("quiet");
        write(&root, "proc/sys/kernel/numa_balancing", "0\n");
        write(&root, "sys/devices/system/cpu/online", "0-3\n");
        write(&root, "sys/devices/system/node/online", "0\n");
        write(
            &root,
            "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
            "performance\n",
        );
        write(
            &root,
            "proc/self/status",
            "Cpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n",
        );
        let s = read_settings(&root, Some(1));
        assert!(!s.restricted_cpuset);
        assert_eq!(s.transparent_hugepages, None);
        assert_eq!(s.sub_numa_clustering, Some(false));
        assert!(warnings(&s).is_empty(), "{:?}", warnings(&s));
        let none = read_settings(&root.join("absent"), None);
        assert_eq!(none, MachineSettings::default());
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn kernel_lists_are_counted() {
        assert_eq!(list_len("0-3,8,10-11"), Some(7));
        assert_eq!(list_len("0"), Some(1));
        assert_eq!(list_len(""), Some(0));
        assert_eq!(list_len("3-1"), None);
        assert_eq!(list_len("x"), None);
        assert_eq!(selected("[always] madvise never"), Some("always".into()));
    }
}
