//! The report of `contention advise` (every placement and core count ranked by the time of
//! one overlapped step) as a [`Report`]: its table, and its fields as JSON.

use crate::overlap::Candidate;
use crate::report::Report;
use serde::Serialize;
use std::fmt::Write;

/// Everything `advise` reports.
#[derive(Debug, Clone, Serialize)]
pub struct AdviseReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// Which model, which machine, in which units.
    #[serde(flatten)]
    pub about: crate::header::About,
    /// `W_M`: bytes the computation streams per step.
    pub comp_bytes: u64,
    /// `W_N`: bytes received per step.
    pub comm_bytes: u64,
    pub notes: Vec<String>,
    /// The fastest configuration (the first of `candidates`).
    pub best: Candidate,
    /// All cores of the socket, both data on NUMA node 0.
    pub naive: Candidate,
    /// `naive.total_time / best.total_time`.
    pub naive_slowdown: f64,
    /// Every configuration evaluated, fastest first.
    pub candidates: Vec<Candidate>,
    /// How many of `candidates` the table lists (`--top`); the JSON has them all.
    #[serde(skip)]
    pub table_rows: usize,
}

impl AdviseReport {
    /// The report whose table lists the `top` fastest configurations.
    pub fn with_top(self, top: usize) -> Self {
        Self {
            table_rows: top,
            ..self
        }
    }
}

impl Report for AdviseReport {
    const SCHEMA_VERSION: u32 = 1;

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn table(&self) -> String {
        table(self)
    }
}

fn ms(seconds: f64) -> f64 {
    seconds * 1e3
}

fn row(out: &mut String, rank: &str, c: &Candidate) {
    let _ = writeln!(
        out,
        "{:>5}  {:>9}  {:>5}  {:>10.3}  {:>9.3}  {:>7.3}  {:>10.3}  {:>7.3}  {:>10.3}  {:>10.3}",
        rank,
        format!("{},{}", c.comp_numa, c.comm_numa),
        c.cores,
        ms(c.times.total_time),
        ms(c.step.comp_time),
        c.step.comp_loss,
        ms(c.step.comm_time),
        c.step.comm_loss,
        ms(c.times.no_overlap_time),
        ms(c.times.no_contention_time),
    );
}

/// The table: the `table_rows` fastest configurations, the naive one, the verdict.
fn table(r: &AdviseReport) -> String {
    let mut out = String::new();
    super::header(&mut out, &r.header, &r.about);
    let _ = writeln!(
        out,
        "# step: computation streams {} B, communication receives {} B; times in ms \
         (JSON: s); T_M = W_M / comp_alone, T_N = W_N / comm_alone (MB/s), \
         L = alone / parallel bandwidth",
        r.comp_bytes, r.comm_bytes
    );
    for note in &r.notes {
        let _ = writeln!(out, "# note: {note}");
    }
    let _ = writeln!(
        out,
        "{:>5}  {:>9}  {:>5}  {:>10}  {:>9}  {:>7}  {:>10}  {:>7}  {:>10}  {:>10}",
        "rank",
        "placement",
        "cores",
        "T_tot",
        "T_M",
        "L_M",
        "T_N",
        "L_N",
        "T_M+T_N",
        "max(T_M,T_N)"
    );
    for (i, c) in r.candidates.iter().take(r.table_rows).enumerate() {
        row(&mut out, &(i + 1).to_string(), c);
    }
    row(&mut out, "naive", &r.naive);
    let b = &r.best;
    let _ = writeln!(
        out,
        "\nbest: {} computing cores, computation data on NUMA node {}, communication data on \
         node {}: {:.3} ms per step",
        b.cores,
        b.comp_numa,
        b.comm_numa,
        ms(b.times.total_time)
    );
    let _ = writeln!(
        out,
        "naive ({} cores, both data on node 0): {:.3} ms, {:.1}% slower than the best",
        r.naive.cores,
        ms(r.naive.times.total_time),
        100.0 * (r.naive_slowdown - 1.0)
    );
    out
}
