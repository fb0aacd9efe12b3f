//! Section VI of Langguth, Cai and Sourouri (2018): heterogeneous computations, where a share
//! `w` of the computation's workload `W_M` runs on accelerators and `1 - w` on the CPU, which
//! also drives the communication (and so suffers the memory bandwidth contention).
//!
//! With `P_A` the accelerators' performance, the accelerators take `T_A = W_M w / P_A`; the
//! CPU's computation takes `T_M = W_M (1 - w) / P_M` uncontended and its step, overlapped with
//! the communication, takes `T_tot` of section IV. The step ends when both are done:
//!
//! ```text
//! T = max(W_M w / P_A,  T^C_N + W_M (1 - w) / P_M - T^C_N / L_M)             if T^C_M >= T^C_N
//! T = max(W_M w / P_A,  T^C_M + T_N - T^C_M / L_N), T^C_M = W_M (1 - w) L_M / P_M   otherwise
//! ```
//!
//! The difference of the two terms is the time one kind of device idles; the best `w` makes
//! them equal. When the communication alone takes longer than the accelerators would for the
//! whole workload, no `w` in [0, 1] balances them and `w = 1` (everything on the accelerators)
//! is best, as the paper says.
//!
//! Here the inputs are times: `T_M` is the whole workload on the CPU (`W_M / P_M`, i.e.
//! `w = 0`) and the accelerators' performance is the ratio `r = P_A / P_M`, so
//! `T_A = T_M w / r`.

use super::time::{total_time, OverlapError, Step};
use serde::Serialize;

/// A step whose computation can be split between the CPU and accelerators.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Hetero {
    /// `T_M`, `T_N`, `L_M`, `L_N`, with `T_M` the whole computation on the CPU (`w = 0`).
    pub(crate) step: Step,
    /// `P_A / P_M`: the accelerators' performance as a multiple of the CPU's uncontended one.
    pub(crate) accel_perf: f64,
}

/// One split of the computation and its times (unit of the inputs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Split {
    /// `w`: the share of the computation on the accelerators.
    pub accel_share: f64,
    /// `T_A = T_M w / r`.
    pub accel_time: f64,
    /// `T_M (1 - w)`: the CPU's share of the computation, uncontended.
    pub cpu_comp_time: f64,
    /// The CPU's overlapped step under contention (`T_tot` of section IV on its share).
    pub cpu_time: f64,
    /// `max(T_A, cpu_time)`: the step.
    pub total_time: f64,
    /// `|T_A - cpu_time|`: how long one kind of device waits for the other.
    pub idle_time: f64,
}

/// The share that balances CPU and accelerators, or why none does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Balance {
    /// CPU and accelerators end together at this split; it is the fastest.
    Balanced { split: Split },
    /// The communication alone (`T_N`) outlasts the accelerators doing everything: no `w` in
    /// [0, 1] balances, and `w = 1` is the fastest split. Written `comm_bound`, the stream's
    /// short name as in every key the tool writes.
    #[serde(rename = "comm_bound")]
    CommunicationBound { split: Split },
}

impl Hetero {
    /// Refuses a performance ratio that is not finite and above 0.
    pub fn new(step: Step, accel_perf: f64) -> Result<Self, OverlapError> {
        if !(accel_perf.is_finite() && accel_perf > 0.0) {
            return Err(OverlapError::AccelPerf { value: accel_perf });
        }
        Ok(Hetero { step, accel_perf })
    }

    /// The times when a share `w` in [0, 1] of the computation runs on the accelerators.
    pub fn split(&self, w: f64) -> Result<Split, OverlapError> {
        if !(0.0..=1.0).contains(&w) {
            return Err(OverlapError::Share { value: w });
        }
        let s = &self.step;
        let accel_time = s.comp_time * w / self.accel_perf;
        let cpu_comp_time = s.comp_time * (1.0 - w);
        let cpu_time = total_time(cpu_comp_time, s.comm_time, s.comp_loss, s.comm_loss);
        Ok(Split {
            accel_share: w,
            accel_time,
            cpu_comp_time,
            cpu_time,
            total_time: accel_time.max(cpu_time),
            idle_time: (accel_time - cpu_time).abs(),
        })
    }

    /// The share `w` where the accelerators' time equals the CPU's, solved on each of the two
    /// linear pieces of section VI's formula.
    ///
    /// `T_A` grows with `w` from 0 and the CPU's time falls to `T_N` at `w = 1`, so a
    /// balance exists exactly when `T_A(1) = T_M / r >= T_N`, and it is unique.
    pub fn balance(&self) -> Balance {
        let s = &self.step;
        let (t, r) = (s.comp_time, self.accel_perf);
        let full_accel = t / r;
        if full_accel < s.comm_time {
            let split = self.split(1.0).expect("1 is a share");
            return Balance::CommunicationBound { split };
        }
        // x = 1 - w, the CPU's share. The computation outlasts the contended communication
        // (T^C_M >= T^C_N) when x >= T^C_N / (T_M L_M).
        let tcn = s.comm_time * s.comm_loss;
        let boundary = tcn / (t * s.comp_loss);
        // CPU ends first: T_A = T^C_M + T_N - T^C_M / L_N, T^C_M = T_M x L_M.
        let x_comm_bound =
            (full_accel - s.comm_time) / (t * (1.0 / r + s.comp_loss * (1.0 - 1.0 / s.comm_loss)));
        // Computation ends last: T_A = T^C_N (1 - 1 / L_M) + T_M x.
        let x_comp_bound = (full_accel - tcn * (1.0 - 1.0 / s.comp_loss)) / (t * (1.0 + 1.0 / r));
        let x = if x_comm_bound <= boundary {
            x_comm_bound
        } else {
            x_comp_bound
        };
        let w = (1.0 - x).clamp(0.0, 1.0);
        let split = self.split(w).expect("clamped to [0, 1]");
        Balance::Balanced { split }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r2(x: f64) -> f64 {
        (x * 100.0).round() / 100.0
    }

    /// Section VI on Cartesius: the CPU gives 10 Gflop/s, two K40 GPUs 25 each (r = 5); with
    /// the single-node share 10 / (10 + 2 x 25) = 1/6 on the CPU, the CPU's part takes 1 ms,
    /// so the whole workload on the CPU takes 6 ms; T_N = 0.5 ms, L_N = 2.2, L_M = 1.72.
    fn cartesius() -> Hetero {
        Hetero::new(Step::new(6.0, 0.5, 1.72, 2.2).unwrap(), 5.0).unwrap()
    }

    #[test]
    fn section_vi_single_node_share_takes_1_46_ms() {
        let s = cartesius().split(5.0 / 6.0).unwrap();
        assert!((s.cpu_comp_time - 1.0).abs() < 1e-12);
        assert!((s.accel_time - 1.0).abs() < 1e-12);
        assert_eq!(r2(s.cpu_time), 1.46);
        assert_eq!(r2(s.total_time), 1.46);
        // "60/1.46 = 41.1 Gflops/s per node".
        assert_eq!((600.0 / s.total_time).round() / 10.0, 41.1);
    }

    #[test]
    fn section_vi_halved_cpu_share() {
        // "reduce the CPU load by half to 8.3%": the GPUs' time grows by 10%, the CPU's
        // falls to 0.97 ms and no longer holds the GPUs back.
        let s = cartesius().split(1.0 - 1.0 / 12.0).unwrap();
        assert_eq!(r2(s.cpu_time), 0.97);
        assert!((s.accel_time - 1.1).abs() < 1e-12);
        assert_eq!(s.total_time, s.accel_time);
    }

    #[test]
    fn balance_equalises_cpu_and_accelerators_and_is_fastest() {
        let h = cartesius();
        let Balance::Balanced { split } = h.balance() else {
            panic!("Cartesius balances")
        };
        assert!(split.idle_time < 1e-12, "{split:?}");
        // Between the paper's two shares on the CPU (8.3% and 16.6%).
        assert!(split.accel_share > 5.0 / 6.0 && split.accel_share < 11.0 / 12.0);
        for i in 0..=1000 {
            let other = h.split(i as f64 / 1000.0).unwrap();
            assert!(split.total_time <= other.total_time + 1e-12, "{other:?}");
        }
    }

    #[test]
    fn balance_on_the_computation_bound_piece() {
        // Little communication: the CPU's computation outlasts it at the balance.
        let h = Hetero::new(Step::new(10.0, 0.1, 1.5, 3.0).unwrap(), 1.0).unwrap();
        let Balance::Balanced { split } = h.balance() else {
            panic!("balances")
        };
        assert!(split.cpu_comp_time * 1.5 >= 0.3);
        assert!(split.idle_time < 1e-12, "{split:?}");
    }

    #[test]
    fn no_share_balances_when_communication_outlasts_the_accelerators() {
        // Accelerators do everything in 6 / 20 = 0.3 ms < T_N = 0.5 ms.
        let h = Hetero::new(Step::new(6.0, 0.5, 1.72, 2.2).unwrap(), 20.0).unwrap();
        let Balance::CommunicationBound { split } = h.balance() else {
            panic!("communication bound")
        };
        assert_eq!(split.accel_share, 1.0);
        assert_eq!(split.cpu_time, 0.5);
        assert_eq!(split.total_time, 0.5);
    }

    #[test]
    fn refuses_bad_shares_and_ratios() {
        let h = cartesius();
        assert_eq!(
            h.split(1.5).unwrap_err(),
            OverlapError::Share { value: 1.5 }
        );
        assert!(Hetero::new(h.step, 0.0).is_err());
        assert!(Hetero::new(h.step, f64::NAN).is_err());
    }
}
