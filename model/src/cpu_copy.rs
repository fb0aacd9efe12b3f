//! The model's variant for communications done by CPU cores (`"variant": "cpu-copy"`):
//! equations 1-3 and 6 of the paper as they are, equation 4 (and with it equation 5) replaced
//! by a law of the memory's loaded latency.
//!
//! **Why.** The paper's model was made for messages that a network card writes into memory
//! by DMA (section 2.1): the memory serves the computing cores first, so communications keep
//! `B_seq^comm` until the bus is full (`R(n) < T(n)`, first case of equation 4) and only then
//! fall towards their floor `alpha`. Between two ranks of one host there is no card: the MPI
//! library copies each message with CPU cores (Open MPI's vader, MPICH's and UCX's shared
//! memory, single copies by CMA, XPMEM or KNEM). A core's copy runs at the number of cache
//! lines it keeps in flight over the memory's latency (Little's law: throughput = requests in
//! flight / time in the system; Little, "A proof for the queuing formula L = λW", Operations
//! Research 9(3), 1961), and that latency grows with the load the computing cores put on the
//! memory long before the bus is full. The paper names this limit itself: on henri the
//! communications are impacted from 10 cores where the model says 14 (section 4.2), and
//! before the threshold the model shares bandwidth "more in favour of computations as in
//! reality" (section 4.3.1). On a 16-core Xeon node, intra-node communications fell from
//! the first computing core (6.0 GB/s alone, 4.5 GB/s beside 4 cores, 1.8 beside 8) while
//! the computations used under half of the memory's 160 GB/s; the paper's model, flat until
//! `T_par^max`, missed them by 33 % (MAPE).
//!
//! **The law.** The simplest latency that grows with the load is a single queue's: with the
//! waiting time of an M/M/1 queue (`S u / (1 - u)` for service time `S` at utilisation `u`;
//! Kleinrock, *Queueing Systems*, vol. 1, 1975, section 3.2) added to the unloaded latency
//! `L0`, the latency is `L0 (1 + kappa u / (1 - u))`, with `kappa = S / L0`, and a copy keeps
//! `L0 / L(u)` of its bandwidth alone:
//!
//! ```text
//! u(n)            = min(1, n B_seq^comp / T(n))                  the computations' load
//! share(n)        = max(alpha, (1 - u) / (1 - u + kappa u))      Little's law, M/M/1 latency
//! B_par^comm(n)   = max(alpha B_seq^comm, min(share(n) B_seq^comm, T(n) - n B_seq^comp))
//! B_par^comp(n)   = min(n B_seq^comp, T(n) - B_par^comm(n))      equation 3
//! B_seq^comp(n)   = min(n B_seq^comp, T(n), T_seq^max)           equation 6
//! ```
//!
//! `u` is the computations' request against the total the memory gives both streams
//! (equation 1); at saturation (`u` = 1) the paper's floor `alpha` holds, the arbitration that
//! keeps communications from starving (section 2.1). Where the bus is full before the law
//! says so, communications never take more than what the computations leave, as in the first
//! case of equation 4. One parameter more than the paper's ten, `kappa`, fitted per side with
//! them; `kappa` near 0 keeps communications whole until saturation (the paper's behaviour
//! without its step), 1 makes them fall linearly with the load. Of the one-parameter laws
//! tried on the 16-core node's trace (communications in parallel, MAPE with `alpha` and the
//! law's parameter fitted to the points): this one 6.4 %, `1 - u^k` 8.7 %, `1 - k u` 10.8 %,
//! the paper's 33 %.
//!
//! Equations 7 and 8 (placements) are unchanged: they choose which parameter set predicts
//! what, and each set carries its own `kappa`.

use super::params::Params;
use super::total::{total, CurvePoint};

/// The computations' load on the memory at `n` cores: their request over the total both
/// streams get, at most 1.
pub fn load(p: &Params, n: u32) -> f64 {
    let t = total(p, n);
    let wanted = f64::from(n) * p.b_seq_comp;
    if t > 0.0 {
        (wanted / t).min(1.0)
    } else {
        1.0
    }
}

/// The share of `B_seq^comm` a copy keeps at load `u` (Little's law with an M/M/1 latency),
/// never below `alpha`.
pub fn share(u: f64, kappa: f64, alpha: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    let free = 1.0 - u;
    let law = if free > 0.0 {
        free / (free + kappa * u)
    } else {
        0.0
    };
    law.max(alpha)
}

/// The variant's bandwidths for `n = 1 ..= max_cores` (see the module's equations).
pub(super) fn curve(p: &Params, kappa: f64, max_cores: u32) -> Vec<CurvePoint> {
    curve_by(p, max_cores, |u| share(u, kappa, p.alpha))
}

/// The module's equations with `share` (of `B_seq^comm`, at the computations' load `u`) in
/// place of Little's law: every law of communications that fall with the load
/// ([`super::knee`] too) shares the rest, equations 1-3 and 6 and the floor `alpha`.
pub(super) fn curve_by(p: &Params, max_cores: u32, share: impl Fn(f64) -> f64) -> Vec<CurvePoint> {
    (1..=max_cores)
        .map(|n| {
            let t = total(p, n);
            let wanted = f64::from(n) * p.b_seq_comp;
            let comp_alone = wanted.min(t).min(p.t_seq_max); // equation 6
            let floor = p.alpha * p.b_seq_comm;
            let law = share(load(p, n)) * p.b_seq_comm;
            let comm_parallel = law.min(t - wanted).max(floor).min(t);
            let comp_parallel = wanted.min(t - comm_parallel).max(0.0); // equation 3
            CurvePoint {
                cores: n,
                total: t,
                comp_alone,
                comp_parallel,
                comm_parallel,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bandwidth;

    /// The 16-core node's local side, about as fitted: 20 GB/s a core, 159 GB/s in all,
    /// 6.3 GB/s of copies alone.
    fn node() -> Params {
        Params {
            n_par_max: 11,
            t_par_max: 159_000.0,
            n_seq_max: 11,
            t_seq_max: 160_000.0,
            t_par_max2: 159_000.0,
            alpha: 0.29,
            delta_l: 0.0,
            delta_r: 0.0,
            b_seq_comp: 20_200.0,
            b_seq_comm: 6_270.0,
            law: crate::Law::CpuCopy { kappa: 0.25 },
        }
    }

    #[test]
    fn the_share_is_whole_unloaded_falls_with_the_load_and_stops_at_alpha() {
        assert_eq!(share(0.0, 0.25, 0.3), 1.0);
        // kappa 1: linear in the load.
        assert!((share(0.4, 1.0, 0.1) - 0.6).abs() < 1e-12);
        // Half loaded, kappa 0.25: 0.5 / (0.5 + 0.125).
        assert!((share(0.5, 0.25, 0.1) - 0.8).abs() < 1e-12);
        assert_eq!(share(1.0, 0.25, 0.3), 0.3);
        assert_eq!(share(0.99, 0.25, 0.3), 0.3, "below alpha: the floor");
        // Monotone in the load.
        let mut last = 1.0;
        for i in 0..=100 {
            let s = share(f64::from(i) / 100.0, 0.25, 0.0);
            assert!(s <= last + 1e-15, "{i}");
            last = s;
        }
    }

    #[test]
    fn communications_fall_from_the_first_core_where_the_paper_keeps_them_whole() {
        let p = node();
        let c = curve(&p, 0.25, 14);
        let paper = bandwidth::curve(
            &Params {
                law: crate::Law::Paper,
                ..p
            },
            14,
        );
        // One core loads the memory by 13 %: the copies lose 4 %; four cores (51 %) 24 %.
        assert!(
            (c[0].comm_parallel / p.b_seq_comm - 0.966).abs() < 0.002,
            "{:?}",
            c[0]
        );
        assert!(
            (c[3].comm_parallel / p.b_seq_comm - 0.80).abs() < 0.01,
            "{:?}",
            c[3]
        );
        // The paper's model gives them all of B_seq^comm there.
        assert_eq!(paper[3].comm_parallel, p.b_seq_comm);
        // Saturated: the floor alpha, the computations take the rest of T.
        assert!((c[9].comm_parallel - 0.29 * p.b_seq_comm).abs() < 1e-9);
        assert!((c[9].comp_parallel - (159_000.0 - 0.29 * p.b_seq_comm)).abs() < 1e-9);
        // Equation 6 is the paper's.
        for (a, b) in c.iter().zip(&paper) {
            assert_eq!(a.comp_alone, b.comp_alone);
            assert_eq!(a.total, b.total);
            assert!(a.comp_parallel + a.comm_parallel <= a.total + 1e-9, "{a:?}");
        }
    }

    #[test]
    fn communications_never_take_what_the_computations_need_above_alpha() {
        // Copies alone nearly as fast as the memory: the law alone would give them more
        // than the computations leave.
        let p = Params {
            b_seq_comm: 150_000.0,
            ..node()
        };
        let c = curve(&p, 0.01, 14);
        let (n, pt) = (6.0, &c[5]);
        let leftover: f64 = 159_000.0 - n * 20_200.0;
        assert!(
            (pt.comm_parallel - leftover.max(0.29 * 150_000.0)).abs() < 1e-9,
            "{pt:?}"
        );
        assert!(pt.comp_parallel >= 0.0);
    }
}
