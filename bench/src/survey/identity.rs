//! One identity per node. A survey's hosts are named by the user (`--hosts`: addresses,
//! short names, aliases) or by Slurm, but each node writes its traces under the host name it
//! reports itself (`$CONTENTION_RESULTS/HOST/`, [`crate::results::this_host`]). The job
//! learns every rank's reported name before round 1 and the manifest keeps both; every later
//! step that looks for a node's results (the fleet report, `--report-only`, `check --fleet`
//! over the results directory) uses the reported one.
//!
//! Two given names that turn out to be one node (an address and its host name) are refused
//! before anything is measured, as are traces already under a reported name of a new survey
//! (the driver, which knows only the given names, checks those first). The driver refuses
//! names that resolve to a common address before it starts the job (`same_address`):
//! Open MPI started with one node named twice runs two daemons under one host name, and its
//! launch then fails at random before any rank can report its name (3 launches in 30 of
//! `mpirun --host a,b,ADDRESS-OF-b,c` on four network-namespace hosts, none in 30 without
//! the repeat). Names that do not resolve where the driver runs are left to the job's check.
//!
//! Nodes with different names can still be one machine: containers or network namespaces on
//! one kernel (each reports its own host name, and the same boot id). Two pairs on one
//! machine measured at once would disturb each other as a sender disturbs the node it sits
//! on (see [`super::pairing`]), so `separate` moves such pairs into rounds of their own.

use super::error::Sameness;
use super::error::SurveyError;
use super::manifest::{HostPair, Manifest, Round};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::net::{IpAddr, ToSocketAddrs};
use std::path::PathBuf;

/// What one rank of the job says of itself before round 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Identity {
    /// The name the survey gave its node (`job_hosts[rank]`).
    pub(crate) given: String,
    /// The host name the node reports: where its traces go.
    pub(crate) reported: String,
    /// This survey's trace already in `ROOT/reported/`, if any.
    pub(crate) old_trace: Option<PathBuf>,
    /// The machine the node runs on: its kernel's boot id (`None` where it cannot be read,
    /// taken as a machine of its own).
    #[serde(default)]
    pub(crate) machine: Option<String>,
}

/// Why the job must stop before round 1, `None` to go on: two given names reporting the same
/// host (always), traces already there (for a new survey, `fresh`: not `--resume`, not
/// `--force`).
pub(crate) fn refusal(ids: &[Identity], fresh: bool) -> Option<SurveyError> {
    for (i, id) in ids.iter().enumerate() {
        if let Some(first) = ids[..i].iter().find(|o| o.reported == id.reported) {
            return Some(SurveyError::SameNode {
                first: first.given.clone(),
                second: id.given.clone(),
                because: Sameness::ReportedName(id.reported.clone()),
            });
        }
    }
    let traces: Vec<PathBuf> = ids.iter().filter_map(|i| i.old_trace.clone()).collect();
    (fresh && !traces.is_empty()).then_some(SurveyError::OldTraces { traces })
}

/// The first two of `hosts` (in the list's order) that share an address, as the error that
/// names both, `None` when all are apart. `resolve` gives a name's addresses (none when it
/// does not resolve: such a name is never refused here); [`resolve`] is the system's, and
/// the names are resolved in parallel, so that a list of unknown names costs one lookup's
/// time out rather than one per name.
pub(crate) fn same_address(
    hosts: &[String],
    resolve: impl Fn(&str) -> Vec<IpAddr> + Sync,
) -> Option<SurveyError> {
    use rayon::prelude::*;
    let addresses: Vec<Vec<IpAddr>> = hosts.par_iter().map(|h| resolve(h)).collect();
    for (i, mine) in addresses.iter().enumerate() {
        for (j, theirs) in addresses[..i].iter().enumerate() {
            if let Some(a) = mine.iter().find(|a| theirs.contains(a)) {
                return Some(SurveyError::SameNode {
                    first: hosts[j].clone(),
                    second: hosts[i].clone(),
                    because: Sameness::Address(*a),
                });
            }
        }
    }
    None
}

/// The addresses `host` resolves to where this process runs (`getaddrinfo`: `/etc/hosts`,
/// DNS; an address given as such is itself, an IPv4-mapped IPv6 one its IPv4 address), none
/// when it does not resolve.
pub(crate) fn resolve(host: &str) -> Vec<IpAddr> {
    let Ok(found) = (host, 0).to_socket_addrs() else {
        return Vec::new();
    };
    // An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 address it maps.
    let mut addresses: Vec<IpAddr> = found.map(|s| s.ip().to_canonical()).collect();
    addresses.sort();
    addresses.dedup();
    addresses
}

/// Records each node's reported name in `m` (by its given name).
pub(crate) fn record(m: &mut Manifest, ids: &[Identity]) {
    for id in ids {
        if let Some(n) = m.node_mut(&id.given) {
            n.reported_host = Some(id.reported.clone());
        }
    }
}

/// What [`separate`] found out about the machines of the pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Separation {
    /// The given names of the nodes that share a machine with another, sorted (empty when
    /// nothing was split).
    pub(crate) shared: Vec<String>,
    /// The pairs whose sender runs on the measured node's own machine, in round order.
    pub(crate) same_machine: Vec<HostPair>,
}

impl Separation {
    /// What the job says before round 1 of the pairs whose sender shares the measured
    /// node's machine; `None` when there is none.
    pub(crate) fn warning(&self) -> Option<String> {
        if self.same_machine.is_empty() {
            return None;
        }
        let pairs: Vec<String> = self
            .same_machine
            .iter()
            .map(|p| format!("{} <- {}", p.measured, p.sender))
            .collect();
        Some(format!(
            "measured <- sender {}: the sender runs on the measured node's own machine (one \
             kernel's boot id: containers or network namespaces), so its messages do not cross \
             a network and its rank and buffers load that machine's cores and memory while it \
             computes: these nodes' communications and contention are those of one machine, \
             not of the fleet's network; survey nodes on distinct machines to measure that",
            pairs.join(", ")
        ))
    }
}

/// Splits every round of `m` so that no two of its pairs touch one machine (by
/// [`Identity::machine`]; unknown machines are all distinct): each pair goes to the first
/// sub-round it shares no machine with, the sub-rounds keep the round's order and time
/// limit. Returns the nodes that share a machine with another, for the log, and the pairs
/// whose sender runs on the measured node's own machine.
///
/// Such a pair is measured and said ([`Separation::warning`], logged before round 1), not
/// refused: where every name is one machine (network namespaces or containers of one host,
/// the bench on which a survey is tried and tested) no other sender exists, and refusing
/// would leave nothing to survey; and its measurement is still `measure`'s own, what
/// `contention measure` does with both ranks on one machine. It is not what a fleet's node
/// sees (messages that cross no network, a sender that loads the measured machine), which
/// is why the log names every such pair.
pub(crate) fn separate(m: &mut Manifest, ids: &[Identity]) -> Separation {
    let machine = |host: &str| machine_of(ids, host);
    let same_machine = m
        .rounds
        .iter()
        .flat_map(|r| &r.pairs)
        // A node measured alone (GPU copies) has no sender to be on its machine.
        .filter(|p| p.measured != p.sender && machine(&p.measured) == machine(&p.sender))
        .cloned()
        .collect();
    Separation {
        shared: split_rounds(m, ids),
        same_machine,
    }
}

/// The machine `host` (a given name) runs on: its boot id, or one of its own when unknown.
fn machine_of(ids: &[Identity], host: &str) -> String {
    ids.iter()
        .find(|i| i.given == host)
        .and_then(|i| i.machine.clone())
        .unwrap_or_else(|| format!("given:{host}"))
}

/// [`separate`]'s split of the rounds; returns the nodes that share a machine (empty when
/// nothing was split).
fn split_rounds(m: &mut Manifest, ids: &[Identity]) -> Vec<String> {
    let machine = |host: &str| machine_of(ids, host);
    let mut rounds = Vec::new();
    for round in &m.rounds {
        let mut split: Vec<(Round, BTreeSet<String>)> = Vec::new();
        for p in &round.pairs {
            let touches = BTreeSet::from([machine(&p.measured), machine(&p.sender)]);
            match split
                .iter_mut()
                .find(|(_, used)| used.is_disjoint(&touches))
            {
                Some((r, used)) => {
                    r.pairs.push(p.clone());
                    used.extend(touches);
                }
                None => {
                    let r = Round {
                        pairs: vec![p.clone()],
                        run: round.run,
                        timeout_s: round.timeout_s,
                    };
                    split.push((r, touches));
                }
            }
        }
        rounds.extend(split.into_iter().map(|(r, _)| r));
    }
    if rounds.len() == m.rounds.len() {
        return Vec::new();
    }
    m.rounds = rounds;
    let hosts = m.rounds.iter().flat_map(|r| &r.pairs);
    let mut shared: Vec<String> = hosts
        .flat_map(|p| [&p.measured, &p.sender])
        .filter(|h| {
            let mine = machine(h);
            ids.iter()
                .any(|o| &o.given != *h && o.machine.as_ref() == Some(&mine))
        })
        .cloned()
        .collect();
    shared.sort();
    shared.dedup();
    shared
}

/// This machine's boot id, which containers and network namespaces on one kernel share and
/// distinct machines never do.
pub(crate) fn this_machine() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = id.trim();
    (!id.is_empty()).then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(given: &str, reported: &str, old: Option<&str>) -> Identity {
        Identity {
            given: given.into(),
            reported: reported.into(),
            old_trace: old.map(PathBuf::from),
            machine: None,
        }
    }

    fn on(machine: &str, given: &str) -> Identity {
        Identity {
            machine: Some(machine.into()),
            ..id(given, given, None)
        }
    }

    fn pairs(m: &Manifest) -> Vec<Vec<(String, String)>> {
        m.rounds
            .iter()
            .map(|r| {
                r.pairs
                    .iter()
                    .map(|p| (p.measured.clone(), p.sender.clone()))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn nodes_measured_alone_share_a_round_unless_they_share_a_machine() {
        let hosts: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let options = [(
            crate::survey::manifest::ENGINE_FLAG.to_string(),
            "gpu --gpu 0 --direction d2h".to_string(),
        )]
        .into();
        let mut m = crate::survey::plan::new_manifest(&hosts, options);
        assert!(m.nodes_alone() && m.odd_count.is_none());
        m.rounds = crate::survey::plan::plan_job(&m, 60.0).unwrap().1;
        let p = |h: &str| (h.to_string(), h.to_string());
        assert_eq!(pairs(&m), [vec![p("a"), p("b"), p("c")]]);
        // b and c one kernel: c measured in a round of its own; no sender to warn of.
        let ids = [on("k1", "a"), on("k2", "b"), on("k2", "c")];
        let s = separate(&mut m, &ids);
        assert_eq!(s.shared, ["b", "c"]);
        assert!(s.same_machine.is_empty() && s.warning().is_none());
        assert_eq!(pairs(&m), [vec![p("a"), p("b")], vec![p("c")]]);
    }

    #[test]
    fn pairs_on_one_machine_are_measured_in_rounds_of_their_own() {
        let hosts: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let fresh = || {
            let mut m = crate::survey::plan::new_manifest(&hosts, Default::default());
            m.rounds = crate::survey::plan::plan_job(&m, 60.0).unwrap().1;
            m
        };
        let p = |m: &str, s: &str| (m.to_string(), s.to_string());

        // Four machines: the two rounds of two pairs stay as they are.
        let mut m = fresh();
        let before = pairs(&m);
        let ids: Vec<Identity> = hosts.iter().map(|h| on(h, h)).collect();
        let s = separate(&mut m, &ids);
        assert!(s.shared.is_empty() && s.same_machine.is_empty());
        assert_eq!(s.warning(), None);
        assert_eq!(pairs(&m), before);
        assert_eq!(before.len(), 2);

        // One kernel under four names (namespace hosts): one pair per round, same order.
        let mut m = fresh();
        let limit = m.rounds[0].timeout_s;
        let ids: Vec<Identity> = hosts.iter().map(|h| on("k1", h)).collect();
        let s = separate(&mut m, &ids);
        assert_eq!(s.shared, ["a", "b", "c", "d"]);
        assert_eq!(s.same_machine.len(), 4, "every sender on the one kernel");
        assert_eq!(
            pairs(&m),
            [
                vec![p("a", "c")],
                vec![p("b", "d")],
                vec![p("c", "a")],
                vec![p("d", "b")]
            ]
        );
        assert!(m.rounds.iter().all(|r| r.timeout_s == limit));

        // Two machines of two names each, paired across: every pair touches both.
        let mut m = fresh();
        let ids = [on("k1", "a"), on("k1", "b"), on("k2", "c"), on("k2", "d")];
        let s = separate(&mut m, &ids);
        assert_eq!(s.shared, ["a", "b", "c", "d"]);
        assert!(
            s.same_machine.is_empty(),
            "every sender on the other machine"
        );
        assert_eq!(pairs(&m).len(), 4);

        // Paired within each machine: the pairs of a round are apart already, but every
        // sender runs on its measured node's machine, which is said, pair by pair.
        let mut m = fresh();
        let ids = [on("k1", "a"), on("k2", "b"), on("k1", "c"), on("k2", "d")];
        let before = pairs(&m);
        assert_eq!(before[0], [p("a", "c"), p("b", "d")]);
        let s = separate(&mut m, &ids);
        assert!(s.shared.is_empty());
        assert_eq!(pairs(&m), before);
        let within: Vec<(String, String)> = s
            .same_machine
            .iter()
            .map(|h| (h.measured.clone(), h.sender.clone()))
            .collect();
        assert_eq!(within, [p("a", "c"), p("b", "d"), p("c", "a"), p("d", "b")]);
        let warning = s.warning().unwrap();
        assert!(
            warning.contains("a <- c, b <- d, c <- a, d <- b")
                && warning.contains("on the measured node's own machine"),
            "{warning}"
        );

        // Unknown machines are taken as distinct.
        let mut m = fresh();
        let ids: Vec<Identity> = hosts.iter().map(|h| id(h, h, None)).collect();
        let s = separate(&mut m, &ids);
        assert!(s.shared.is_empty() && s.same_machine.is_empty());
        assert_eq!(pairs(&m), before);
    }

    #[test]
    fn two_names_of_one_node_are_refused_naming_both_and_the_host() {
        let ids = [
            id("10.0.0.1", "node-1", None),
            id("10.0.0.2", "node-2", None),
            id("node-1.cluster", "node-1", None),
        ];
        let e = refusal(&ids, false).unwrap();
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(
            msg.contains("`10.0.0.1` and `node-1.cluster` are the same node")
                && msg.contains("`node-1`"),
            "{msg}"
        );
        assert!(refusal(&ids[..2], true).is_none());
    }

    #[test]
    fn names_that_share_an_address_are_refused_before_the_job() {
        let v4 = |s: &str| s.parse::<IpAddr>().unwrap();
        // A name, an address, an unknown name, another name of the first node (its IPv6
        // address among others): the first pair found is named, in the list's order.
        let table = |h: &str| match h {
            "node-1" => vec![v4("10.0.0.1"), v4("fd00::1")],
            "10.0.0.2" => vec![v4("10.0.0.2")],
            "node-1-ib" => vec![v4("192.168.0.1"), v4("fd00::1")],
            _ => Vec::new(),
        };
        let hosts: Vec<String> = ["node-1", "10.0.0.2", "alias", "node-1-ib"]
            .map(String::from)
            .to_vec();
        let e = same_address(&hosts, table).unwrap();
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(
            msg.contains(
                "`node-1` and `node-1-ib` are the same node (both resolve to the address fd00::1)"
            ),
            "{msg}"
        );
        // Names that do not resolve are never taken for one node.
        assert!(same_address(&hosts[..3], table).is_none());
        assert!(same_address(&hosts, |_| Vec::new()).is_none());
        // The system's resolver: an address is itself, an address given twice is one node.
        assert_eq!(resolve("10.1.2.3"), [v4("10.1.2.3")]);
        let twice = ["10.1.2.3".to_string(), "10.1.2.3".to_string()];
        assert!(same_address(&twice, resolve).is_some());
    }

    /// An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is the IPv4 address it maps: one
    /// host, which the address check missed.
    #[test]
    fn an_ipv4_mapped_address_is_the_same_node_as_its_ipv4_one() {
        let hosts = ["127.0.0.1".to_string(), "::ffff:127.0.0.1".to_string()];
        let e = same_address(&hosts, resolve).expect("one host under two spellings");
        assert!(
            e.to_string()
                .contains("both resolve to the address 127.0.0.1"),
            "{e}"
        );
        let apart = ["127.0.0.1".to_string(), "::ffff:127.0.0.2".to_string()];
        assert!(same_address(&apart, resolve).is_none());
    }

    #[test]
    fn old_traces_under_the_reported_names_stop_a_new_survey_only() {
        let ids = [
            id("10.0.0.1", "node-1", Some("/r/node-1/trace.json")),
            id("10.0.0.2", "node-2", None),
        ];
        let msg = refusal(&ids, true).unwrap().to_string();
        assert!(msg.contains("`/r/node-1/trace.json`"), "{msg}");
        assert!(refusal(&ids, false).is_none(), "--resume, --force");
    }

    #[test]
    fn the_manifest_keeps_both_names_and_the_results_go_by_the_reported_one() {
        let mut m = crate::survey::plan::new_manifest(
            &["10.0.0.1".into(), "10.0.0.2".into()],
            Default::default(),
        );
        record(&mut m, &[id("10.0.0.2", "node-2", None)]);
        assert_eq!(m.nodes[1].host, "10.0.0.2");
        assert_eq!(m.nodes[1].results_name(), "node-2");
        assert_eq!(m.nodes[0].results_name(), "10.0.0.1", "not learnt yet");
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["nodes"][1]["reported_host"], "node-2");
        assert!(json["nodes"][0].get("reported_host").is_none());
    }
}
