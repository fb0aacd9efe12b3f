//! Namespace hosts (`tests/vm/hosts.sh`, `tests/vm/two-hosts.sh`: one network and UTS
//! namespace per host, Open MPI's remote daemons started through an rsh agent that enters
//! them): whether they can be made here, names unique to this process, and the skip when the
//! script could not make them. Shared by `two_hosts`, `survey` and `fleet`.

use super::gate;
use std::process::Output;

/// The commands namespace hosts need: `tests/vm/hosts.sh` and `netns-rsh.sh` make and enter
/// the namespaces, the tool launches with `mpirun`. `.ci/setup-tests` checks each of them
/// (`tests/setup.rs` holds it to that).
pub const TOOLS: [&str; 6] = ["ip", "unshare", "nsenter", "mount", "umount", "mpirun"];

/// Whether namespace hosts can run here (root and the commands they need); otherwise skip,
/// or fail in CI.
pub fn runnable(test: &str) -> bool {
    gate::decide(test, gate::missing(&TOOLS))
}

/// `n` host names unique to this process, its module (`prefix`) and test (`tag`): namespace
/// names are global to the machine.
pub fn names(prefix: char, tag: char, n: usize) -> Vec<String> {
    let id = std::process::id() % 100_000;
    (0..n)
        .map(|i| format!("{prefix}{id}{tag}{}", (b'a' + i as u8) as char))
        .collect()
}

/// The live processes named `comm` (as /proc/PID/comm says) inside the network namespace
/// `ns`: a host's ranks, a node's daemons.
pub fn processes_in(ns: &str, comm: &str) -> Vec<String> {
    let o = std::process::Command::new("ip")
        .args(["netns", "pids", ns])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == comm)
                && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .unwrap_or_default()
                    .contains(") Z ")
        })
        .map(str::to_string)
        .collect()
}

/// Whether a tiny survey ended as it must: every node measured, and either a fleet report
/// or exit 1 saying which nodes could not be calibrated (the hosts share this loaded
/// machine's cores, and a node's curve can be refused as implausible), never with a node
/// lost.
pub fn survey_ended(o: &Output) -> bool {
    let err = String::from_utf8_lossy(&o.stderr);
    o.status.success()
        || o.status.code() == Some(1)
            && err.contains("could not be calibrated")
            && !err.contains("node(s) failed")
}

/// The hosts script exits 3 when it could not make the hosts (a container without the
/// rights): skip outside CI, naming `what` and the script's reason.
pub fn hosts_made(what: &str, o: &Output) -> bool {
    if o.status.code() == Some(3) {
        let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
        return gate::decide(what, Some(format!("hosts could not be made: {why}")));
    }
    true
}
