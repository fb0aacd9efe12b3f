//! The report of `contention overlap` (Langguth et al.'s time model on one step) as a
//! [`Report`]: its table, and its fields as JSON.

use crate::overlap::{Balance, Split, Step, StepTimes};
use crate::report::Report;
use serde::Serialize;
use std::fmt::Write;

/// Which stream ends last under contention, written `comp` or `comm` like the streams in
/// every other key the tool writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Bound {
    /// `T^C_M >= T^C_N`: the computation ends the step.
    #[serde(rename = "comp")]
    Computation,
    /// `T^C_N > T^C_M`: the communication ends the step.
    #[serde(rename = "comm")]
    Communication,
}

impl Bound {
    pub fn of(t: &StepTimes) -> Self {
        if t.contended_comp_time >= t.contended_comm_time {
            Bound::Computation
        } else {
            Bound::Communication
        }
    }
}

/// Section VI: the split asked for, and the balancing one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HeteroReport {
    /// `P_A / P_M`.
    pub accel_perf: f64,
    /// The times at `--accel-share`, when given.
    pub at_share: Option<Split>,
    /// The share that balances CPU and accelerators, or `comm_bound` when none does.
    pub balance: Balance,
}

/// Everything `overlap` reports; times in the unit of the inputs.
#[derive(Debug, Clone, Serialize)]
pub struct OverlapReport {
    #[serde(flatten)]
    pub header: crate::header::Header,
    /// Times are in the inputs' unit ([`crate::units::UNITS_OF_INPUT_TIMES`]).
    pub units: crate::units::Units,
    /// The inputs: `comp_time`, `comm_time`, `comp_loss`, `comm_loss`.
    #[serde(flatten)]
    pub step: Step,
    /// `contended_comp_time`, `contended_comm_time`, `total_time`, `no_overlap_time`,
    /// `no_contention_time`.
    #[serde(flatten)]
    pub times: StepTimes,
    pub bound: Bound,
    /// Present with `--accel-perf`.
    pub heterogeneous: Option<HeteroReport>,
}

/// A number with 4 significant decimals at least, without trailing noise.
fn t(x: f64) -> String {
    format!("{x:.4}")
}

fn split_lines(out: &mut String, title: &str, s: &Split) {
    let _ = writeln!(out, "{title}: w = {:.4}", s.accel_share);
    let _ = writeln!(out, "  accelerators  T_A          {}", t(s.accel_time));
    let _ = writeln!(out, "  CPU share     T_M (1 - w)  {}", t(s.cpu_comp_time));
    let _ = writeln!(out, "  CPU step      T_tot        {}", t(s.cpu_time));
    let _ = writeln!(out, "  step          max          {}", t(s.total_time));
    let _ = writeln!(out, "  idle          |difference| {}", t(s.idle_time));
}

impl Report for OverlapReport {
    const SCHEMA_VERSION: u32 = 1;

    fn table(&self) -> String {
        table(self)
    }
}

fn table(r: &OverlapReport) -> String {
    let (s, tm) = (&r.step, &r.times);
    let mut out = String::new();
    let _ = writeln!(out, "# {}", r.header.tool.summary());
    let _ = writeln!(
        out,
        "# Langguth, Cai, Sourouri 2018, section IV; times in the unit of the inputs"
    );
    let _ = writeln!(
        out,
        "computation    T_M {:>12}  L_M {}",
        t(s.comp_time),
        s.comp_loss
    );
    let _ = writeln!(
        out,
        "communication  T_N {:>12}  L_N {}",
        t(s.comm_time),
        s.comm_loss
    );
    let _ = writeln!(
        out,
        "contended      T^C_M = T_M L_M     {}",
        t(tm.contended_comp_time)
    );
    let _ = writeln!(
        out,
        "               T^C_N = T_N L_N     {}",
        t(tm.contended_comm_time)
    );
    let ends = match r.bound {
        Bound::Computation => "the computation ends the step",
        Bound::Communication => "the communication ends the step",
    };
    let _ = writeln!(
        out,
        "overlapped     T_tot               {}  ({ends})",
        t(tm.total_time)
    );
    let _ = writeln!(
        out,
        "no overlap     T_M + T_N           {}  ({:+.1}% against T_tot)",
        t(tm.no_overlap_time),
        100.0 * (tm.no_overlap_time / tm.total_time - 1.0)
    );
    let _ = writeln!(
        out,
        "no contention  max(T_M, T_N)       {}  (contention costs {:.1}%)",
        t(tm.no_contention_time),
        100.0 * (tm.total_time / tm.no_contention_time - 1.0)
    );
    if let Some(h) = &r.heterogeneous {
        out.push('\n');
        let _ = writeln!(
            out,
            "# section VI: accelerators {}x the CPU; T_M above is the whole computation on the CPU",
            h.accel_perf
        );
        if let Some(at) = &h.at_share {
            split_lines(&mut out, "asked share", at);
        }
        match &h.balance {
            Balance::Balanced { split } => split_lines(&mut out, "balanced share", split),
            Balance::CommunicationBound { split } => {
                let _ = writeln!(
                    out,
                    "no share in [0, 1] balances: the communication alone (T_N = {}) outlasts \
                     the accelerators doing everything ({}); the best is w = 1",
                    t(s.comm_time),
                    t(split.accel_time)
                );
                split_lines(&mut out, "best share", split);
            }
        }
    }
    out
}
