//! `contention` on multi-socket NUMA machines it does not run on otherwise: QEMU guests
//! booted by `tests/vm/numa-guest.sh` (virtme-ng, TCG, this machine's root file system),
//! 2 sockets x 1 NUMA node and 2 sockets x 2 NUMA nodes (sub-NUMA clustering), each with a
//! network card on the first NUMA node of socket 1 (`m`). Inside, `tests/vm/guest-checks.sh`
//! runs the plan, a tiny `measure` of placements 0,0  m,m  0,m  m,0 while it reads rank 0's
//! `/proc/PID/numa_maps` from outside the tool, and the main job (`.ci/main-job`).
//!
//! Bandwidths under TCG mean nothing: what is checked is where threads and pages went and
//! that the pipeline runs (local and remote measured, both sides calibrated, every placement
//! predicted). One guest at a time, booted once per layout.

use crate::common::gate;
use crate::common::run::{command, one_job, temp_dir, BIN};

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The commands a guest needs on this machine's `PATH`: `tests/vm/numa-guest.sh` runs `vng`,
/// which runs `virtme-run` by name, which runs QEMU, `busybox` (the initramfs) and `file`;
/// inside, the guest runs the tool (`mpirun`) and hwloc's commands from this machine's root
/// file system. `.ci/setup-tests` checks each of them (`tests/setup.rs` holds it to that).
pub const TOOLS: [&str; 8] = [
    "vng",
    "virtme-run",
    "qemu-system-x86_64",
    "busybox",
    "file",
    "mpirun",
    "hwloc-calc",
    "lstopo-no-graphics",
];

fn runnable(test: &str) -> bool {
    let problem = gate::missing(&TOOLS).or_else(|| {
        gate::distribution_kernel().is_none().then(|| {
            "no /boot/vmlinuz-*-amd64 (Debian's linux-image-amd64; -cloud lacks 9p)".into()
        })
    });
    gate::decide(test, problem)
}

fn read_json(p: &Path) -> Value {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Pages of memory bound with policy `bind:N`, per line of numa_maps: (bound node, pages
/// per node where they lie). Lines of other policies (the program's own heap, libraries)
/// are not the tool's buffers.
fn bound_regions(numa_maps: &str) -> Vec<(u32, BTreeMap<u32, u64>)> {
    let mut out = Vec::new();
    for line in numa_maps.lines() {
        let mut words = line.split_whitespace();
        let _addr = words.next();
        let Some(policy) = words.next() else { continue };
        // `bind:2`, or `bind=static:2` with mode flags.
        let Some(node) = policy
            .strip_prefix("bind")
            .and_then(|rest| rest.rsplit(':').next())
        else {
            continue;
        };
        let node: u32 = node
            .parse()
            .unwrap_or_else(|_| panic!("policy {policy} in {line}"));
        let mut pages = BTreeMap::new();
        for w in words {
            if let Some((k, v)) = w.split_once('=') {
                if let (Some(n), Ok(v)) = (k.strip_prefix('N'), v.parse::<u64>()) {
                    if let Ok(n) = n.parse::<u32>() {
                        *pages.entry(n).or_insert(0) += v;
                    }
                }
            }
        }
        out.push((node, pages));
    }
    out
}

struct Guest {
    out: PathBuf,
    /// First NUMA node of socket 1 (logical index).
    m: u32,
}

fn boot(layout: &str) -> Guest {
    let out = temp_dir(&format!("vm-{layout}"));
    let status = Command::new("bash")
        .args(["tests/vm/numa-guest.sh", layout])
        .arg(&out)
        .arg(BIN)
        .status()
        .expect("bash runs");
    let steps = std::fs::read_to_string(out.join("steps.txt")).unwrap_or_default();
    let wall = std::fs::read_to_string(out.join("wall_seconds")).unwrap_or_default();
    gate::say(&format!(
        "guest {layout}: {} s from boot to power-off; steps (name, exit status, ms):\n{steps}",
        wall.trim()
    ));
    assert!(
        status.success(),
        "numa-guest.sh {layout} failed; see {}",
        out.display()
    );
    // Main jobs stopped on starved communications and run again (see `main_job`).
    let main = std::fs::read_to_string(out.join("main-attempts.txt")).unwrap_or_default();
    if main.trim().parse::<u32>().is_ok_and(|n| n > 1) {
        gate::say(&format!(
            "guest {layout}: the main job took {} runs (starved communications)",
            main.trim()
        ));
    }
    for line in steps.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            f.get(1),
            Some(&"0"),
            "step failed in guest {layout}: {line}; see {}",
            out.display()
        );
    }
    let m = std::fs::read_to_string(out.join("first_node_of_socket1.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    Guest { out, m }
}

/// The checks both layouts share; `nodes_per_socket` is the layout's.
fn check_guest(layout: &str, nodes_per_socket: u32) {
    // One guest at a time (each emulates 4 CPUs on this machine's cores), and no MPI job
    // beside it.
    let _one = one_job();
    let g = boot(layout);
    let m = g.m;
    assert_eq!(m, nodes_per_socket, "first node of socket 1 in {layout}");
    let plan = std::fs::read_to_string(g.out.join("plan.txt")).unwrap();
    assert!(
        plan.contains(&format!(
            "{} NUMA node(s), {nodes_per_socket} per socket",
            2 * nodes_per_socket
        )),
        "{plan}"
    );

    for (c, k) in [(0, 0), (m, m), (0, m), (m, 0)] {
        let name = format!("{c}-{k}");
        let trace = read_json(&g.out.join(format!("place-{name}.json")));
        // Runs that failed before the one kept (the guest's emulated copies can fall under
        // the starvation threshold on a busy host): said, and shown if none succeeded.
        let failures =
            std::fs::read_to_string(g.out.join(format!("failures-{name}.txt"))).unwrap_or_default();
        if !failures.is_empty() {
            gate::say(&format!(
                "guest {layout} placement {c},{k}: failed runs:\n{failures}"
            ));
        }
        assert_eq!(trace["complete"], true, "{name}: failed runs:\n{failures}");
        assert_eq!(trace["config"]["comp_numa"], c, "{name}");
        assert_eq!(trace["config"]["comm_numa"], k, "{name}");
        assert_eq!(trace["machine"]["sockets"], 2);
        assert_eq!(trace["machine"]["numa_per_socket"], nodes_per_socket);
        assert_eq!(trace["points"].as_array().unwrap().len(), 1, "{name}");
        // The network card is on socket 1: the communication thread goes beside it, the
        // computing threads stay on socket 0.
        let nic_sockets: Vec<&Value> = trace["machine"]["nics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| &n["socket"])
            .collect();
        assert!(nic_sockets.contains(&&Value::from(1)), "{nic_sockets:?}");
        assert_eq!(
            trace["plan"]["comm"]["socket"], 1,
            "{name}: {}",
            trace["plan"]
        );
        assert!(
            trace["plan"]["comm_reason"]
                .as_str()
                .unwrap()
                .contains("network card"),
            "{}",
            trace["plan"]["comm_reason"]
        );
        for slot in trace["plan"]["compute"].as_array().unwrap() {
            assert_eq!(slot["socket"], 0, "{name}: {slot}");
        }

        // From outside the tool: rank 0's bound memory lies on the nodes asked, all of it.
        let comp_os = trace["plan"]["comp_numa_os"].as_u64().unwrap() as u32;
        let comm_os = trace["plan"]["comm_numa_os"].as_u64().unwrap() as u32;
        let maps_file = g.out.join(format!("numa_maps-{name}.txt"));
        let maps = std::fs::read_to_string(&maps_file).unwrap_or_else(|e| {
            panic!("{}: {e} (rank 0 was not seen running)", maps_file.display())
        });
        let regions = bound_regions(&maps);
        let mut pages_on: BTreeMap<u32, u64> = BTreeMap::new();
        for (node, pages) in &regions {
            for (n, p) in pages {
                assert_eq!(
                    n, node,
                    "{name}: a region bound to node {node} has {p} pages on node {n}:\n{maps}"
                );
                *pages_on.entry(*n).or_insert(0) += p;
            }
        }
        // The computing buffer and the message buffer, whole, each bound to its node (4 KiB
        // pages: numa_maps counts pages of kernelpagesize_kB, 4 for anonymous memory here).
        for (what, node, bytes) in [
            (
                "computing buffer",
                comp_os,
                &trace["config"]["buffer_bytes_per_core"],
            ),
            (
                "message buffer",
                comm_os,
                &trace["config"]["message_size_bytes"],
            ),
        ] {
            let bytes = bytes
                .as_u64()
                .unwrap_or_else(|| panic!("{what} size in config"));
            assert!(
                regions
                    .iter()
                    .any(|(n, p)| *n == node && p.values().sum::<u64>() * 4096 >= bytes),
                "{name}: no region of {bytes} bytes bound to node {node} for the {what}:\n{maps}"
            );
        }
        let bound: Vec<u32> = pages_on.keys().copied().collect();
        let mut want = vec![comp_os, comm_os];
        want.dedup();
        want.sort();
        assert_eq!(bound, want, "{name}: bound pages per node {pages_on:?}");
        // From outside the tool too: each thread's CPU affinity and the CPU it last ran on
        // are the plan's PU (`compute-I` on compute[I], `communication` on comm).
        let threads_file = g.out.join(format!("threads-{name}.txt"));
        let threads = std::fs::read_to_string(&threads_file).unwrap();
        let mut seen = Vec::new();
        for line in threads.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [thread, allowed, last] = f[..] else {
                panic!("{}: bad line {line}", threads_file.display())
            };
            let want = match thread.strip_prefix("compute-") {
                Some(i) => &trace["plan"]["compute"][i.parse::<usize>().unwrap()]["pu_os"],
                None => &trace["plan"]["comm"]["pu_os"],
            };
            assert_eq!(
                allowed,
                want.to_string(),
                "{name}: {line} (plan {})",
                trace["plan"]
            );
            assert_eq!(last, want.to_string(), "{name}: {line}");
            seen.push(thread.to_string());
        }
        assert!(
            seen.iter().any(|t| t == "communication") && seen.iter().any(|t| t == "compute-0"),
            "{name}: threads seen {seen:?}"
        );
        // The tool's own records agree: every buffer's pages lie on the node it was bound to
        // (the placement's), every thread ran only on its PU, and one host means intra-node.
        for b in trace["buffers"].as_array().expect("trace.buffers") {
            let node = b["bound_to"].as_u64().unwrap() as u32;
            assert!(node == comp_os || node == comm_os, "{name}: {b}");
            let on: Vec<&String> = b["on_nodes"].as_object().unwrap().keys().collect();
            assert_eq!(on, [&node.to_string()], "{name}: {b}");
            assert_eq!(b["unknown"], 0, "{name}: {b}");
        }
        for point in trace["points"].as_array().unwrap() {
            for t in point["ran_on"].as_array().expect("point.ran_on") {
                assert_eq!(
                    t["ran_on"],
                    serde_json::json!([t["bound_to"]]),
                    "{name}: {t}"
                );
            }
        }
        assert_eq!(trace["transport"]["kind"], "intra-node", "{name}");
        gate::say(&format!(
            "guest {layout} placement {c},{k}: trace records buffers {} ran_on {}",
            trace["buffers"], trace["points"][0]["ran_on"]
        ));
        let attempts = std::fs::read_to_string(g.out.join(format!("attempts-{c}-{k}.txt")))
            .unwrap_or_default();
        gate::say(&format!(
            "guest {layout} placement {c},{k}: rank 0's threads (name, allowed CPUs, last CPU): \
             {threads:?}, seen in run {} of the placement",
            attempts.trim()
        ));
        gate::say(&format!(
            "guest {layout} placement {c},{k}: rank 0's bound pages per NUMA node (numa_maps) \
             {pages_on:?}; computing PUs in order (OS index) {}, communication PU {}",
            trace["plan"]["compute"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["pu_os"].to_string())
                .collect::<Vec<_>>()
                .join(","),
            trace["plan"]["comm"]["pu_os"]
        ));
    }

    // The main job's multi-socket branch: local and remote measured, both calibrated, every
    // placement predicted.
    // The main job uses the results directory: RESULTS/HOST/, traces named by placement.
    let host = std::fs::read_to_string(g.out.join("hostname.txt")).unwrap();
    let main = g.out.join("main").join(host.trim());
    let local = read_json(&main.join("trace-numa0-0-nt-store-pong.json"));
    let remote = read_json(&main.join(format!("trace-numa{m}-{m}-nt-store-pong.json")));
    assert_eq!(
        (
            local["config"]["comp_numa"].clone(),
            local["config"]["comm_numa"].clone()
        ),
        (0.into(), 0.into())
    );
    assert_eq!(
        (
            remote["config"]["comp_numa"].clone(),
            remote["config"]["comm_numa"].clone()
        ),
        (m.into(), m.into())
    );
    let model = read_json(&main.join("model.json"));
    assert!(
        model["local"].is_object() && model["remote"].is_object(),
        "{model}"
    );
    assert_eq!(model["machine"]["numa_per_socket"], nodes_per_socket);
    let o = command()
        .args(["predict", "--model"])
        .arg(main.join("model.json"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pred: Value = serde_json::from_slice(&o.stdout).unwrap();
    let nodes = 2 * nodes_per_socket;
    assert_eq!(
        pred["placements"].as_array().unwrap().len() as u32,
        nodes * nodes
    );
    for f in ["prediction.txt", "evaluation.txt"] {
        assert!(main.join(f).is_file(), "{f}");
    }
    let figures = std::fs::read_dir(main.join("figures")).unwrap().count();
    assert!(figures > 0, "no figures");
}

#[test]
fn two_sockets_one_numa_node_each() {
    if runnable("two_sockets_one_numa_node_each") {
        check_guest("2x1", 1);
    }
}

#[test]
fn two_sockets_two_numa_nodes_each_sub_numa_clustering() {
    if runnable("two_sockets_two_numa_nodes_each_sub_numa_clustering") {
        check_guest("2x2", 2);
    }
}

#[test]
fn numa_maps_regions_are_read_by_policy() {
    let maps = "\
7f0000000000 bind:2 anon=4096 dirty=4096 N2=4096 kernelpagesize_kB=4
7f1000000000 default anon=10 dirty=10 N0=7 N1=3 kernelpagesize_kB=4
7f2000000000 bind=static:0 anon=3 dirty=3 N0=2 N1=1 kernelpagesize_kB=4
";
    let r = bound_regions(maps);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0], (2, BTreeMap::from([(2, 4096)])));
    assert_eq!(r[1], (0, BTreeMap::from([(0, 2), (1, 1)])));
}
