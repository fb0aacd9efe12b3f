//! What a simulated machine really does: the bandwidths of every placement and core count,
//! noise-free. Either exactly the paper's model of a machine of its Table 1 (equations 1-8,
//! Appendix B's parameters), or a "realistic" machine built on it whose curves the piecewise
//! model cannot follow exactly: soft knees where bandwidth saturates, and a slow decline past
//! the plateau, as the paper's own Figures 2-4 show beside the model's straight pieces.

use crate::model::{self, paper, Machine, Model, Placement, Point, PredictError};
use std::fmt;

/// How a simulated machine's truth follows the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Exactly the paper's model: a fit can recover it (`paper:NAME`).
    Paper,
    /// The paper's model smoothed at its knees, with a slow decline past the computations'
    /// plateau (`realistic:NAME`): no parameter set reproduces it exactly.
    Realistic,
}

impl Shape {
    fn prefix(self) -> &'static str {
        match self {
            Shape::Paper => "paper",
            Shape::Realistic => "realistic",
        }
    }
}

/// A simulated machine's truth: the machine (the paper's description of it) and its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    shape: Shape,
    name: String,
    model: Model,
}

/// Why a machine specification was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecError {
    /// Not `KIND:NAME`, or a kind other than `paper` and `realistic`.
    Syntax(String),
    /// A machine the paper does not have.
    UnknownMachine(String),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = paper::names().join(", ");
        match self {
            SpecError::Syntax(spec) => write!(
                f,
                "simulated machine `{}`: expected `paper:NAME` (the paper's model of a machine) \
                 or `realistic:NAME` (the same machine with soft knees and a slow decline), \
                 NAME one of {names}",
                crate::error::escape(spec)
            ),
            SpecError::UnknownMachine(spec) => write!(
                f,
                "simulated machine `{}`: the paper has no such machine; use one of {names}",
                crate::error::escape(spec)
            ),
        }
    }
}

impl std::error::Error for SpecError {}
crate::wrap!(Input: SpecError);

/// Standard deviation of the realistic machine's smoothing, in cores: how wide its knees are.
const KNEE_CORES: f64 = 1.5;
/// Widest half-window of that smoothing, in cores.
const KNEE_REACH: u32 = 4;
/// Share of their bandwidth computations lose per core past the plateau of computations
/// alone, on a realistic machine.
const DECLINE_PER_CORE: f64 = 0.004;

impl Truth {
    /// Parses `paper:NAME` or `realistic:NAME`, NAME a machine of the paper's Table 1.
    pub fn parse(spec: &str) -> Result<Truth, SpecError> {
        let (kind, name) = spec
            .split_once(':')
            .ok_or_else(|| SpecError::Syntax(spec.into()))?;
        let shape = match kind {
            "paper" => Shape::Paper,
            "realistic" => Shape::Realistic,
            _ => return Err(SpecError::Syntax(spec.into())),
        };
        let json = paper::model_json(name).ok_or_else(|| SpecError::UnknownMachine(spec.into()))?;
        let model: Model = serde_json::from_str(json).expect("the paper's model files parse");
        Ok(Truth {
            shape,
            name: name.into(),
            model,
        })
    }

    /// The specification it was parsed from, `paper:henri`.
    pub fn spec(&self) -> String {
        format!("{}:{}", self.shape.prefix(), self.name)
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The paper's model the machine is built on: the truth itself for [`Shape::Paper`].
    pub fn model(&self) -> &Model {
        &self.model
    }

    pub fn machine(&self) -> &Machine {
        &self.model.machine
    }

    /// Every placement of the machine, in the order of [`model::all_placements`].
    pub fn placements(&self) -> Vec<Placement> {
        model::all_placements(&self.model)
    }

    /// The true bandwidths of `placement` at each of `cores` (each in
    /// `1..=cores_per_socket`), noise-free.
    pub fn points(&self, placement: Placement, cores: &[u32]) -> Result<Vec<Point>, PredictError> {
        match self.shape {
            Shape::Paper => Ok(model::predict(&self.model, &[placement], cores)?
                .remove(0)
                .points),
            Shape::Realistic => {
                // Check the request as the model would, then answer from the whole curve.
                model::predict(&self.model, &[placement], cores)?;
                let all: Vec<u32> = (1..=self.model.machine.cores_per_socket).collect();
                let curve = realistic(&model::predict(&self.model, &[placement], &all)?[0].points);
                Ok(cores.iter().map(|&n| curve[n as usize - 1]).collect())
            }
        }
    }

    /// The true bandwidths of `placement` at `cores`.
    pub fn point(&self, placement: Placement, cores: u32) -> Result<Point, PredictError> {
        Ok(self.points(placement, &[cores])?[0])
    }
}

/// The realistic machine's curve from the model's curve (`model[i]` at `i + 1` cores): every
/// bandwidth but communications alone smoothed by a Gaussian kernel over neighbouring core
/// counts, which rounds the model's knees (equation 1's breakpoints, equation 6's `min`,
/// equation 5's fall of `alpha(n)`) into curves; then computations lose
/// [`DECLINE_PER_CORE`] per core past their plateau instead of staying flat (equation 6).
///
/// The kernel's window is symmetric (as wide on both sides, so narrower near the ends),
/// which leaves straight pieces straight: only knees move.
fn realistic(model: &[Point]) -> Vec<Point> {
    let last = model.len() as u32;
    let smooth = |i: usize, f: fn(&Point) -> f64| {
        let n = i as u32 + 1;
        let reach = KNEE_REACH.min(n - 1).min(last - n) as i64;
        let (mut sum, mut weights) = (0.0, 0.0);
        for d in -reach..=reach {
            let w = (-(d as f64).powi(2) / (2.0 * KNEE_CORES * KNEE_CORES)).exp();
            sum += w * f(&model[(i as i64 + d) as usize]);
            weights += w;
        }
        sum / weights
    };
    let plateau = model
        .iter()
        .enumerate()
        .fold((0, f64::MIN), |best, (i, p)| {
            if p.comp_alone > best.1 {
                (i, p.comp_alone)
            } else {
                best
            }
        })
        .0;
    (0..model.len())
        .map(|i| {
            let decline = 1.0 - DECLINE_PER_CORE * i.saturating_sub(plateau) as f64;
            Point {
                cores: model[i].cores,
                comp_alone: smooth(i, |p| p.comp_alone) * decline,
                comm_alone: model[i].comm_alone,
                comp_parallel: smooth(i, |p| p.comp_parallel) * decline,
                comm_parallel: smooth(i, |p| p.comm_parallel),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(comp_numa: u32, comm_numa: u32) -> Placement {
        Placement {
            comp_numa,
            comm_numa,
        }
    }

    #[test]
    fn specs_name_the_shape_and_a_machine_of_the_paper() {
        let t = Truth::parse("paper:henri").unwrap();
        assert_eq!((t.shape(), t.spec()), (Shape::Paper, "paper:henri".into()));
        assert_eq!(t.machine().cores_per_socket, 18);
        let r = Truth::parse("realistic:dahu").unwrap();
        assert_eq!(r.shape(), Shape::Realistic);
        for bad in ["henri", "model:henri", ""] {
            let e = Truth::parse(bad).unwrap_err();
            assert!(matches!(e, SpecError::Syntax(_)), "{bad}: {e}");
            assert!(e.to_string().contains("paper:NAME"), "{e}");
        }
        let e = Truth::parse("paper:nope").unwrap_err().to_string();
        assert!(e.contains("paper:nope") && e.contains("henri"), "{e}");
    }

    #[test]
    fn a_paper_machine_is_exactly_the_papers_model() {
        let t = Truth::parse("paper:dahu").unwrap();
        let cores: Vec<u32> = (1..=t.machine().cores_per_socket).collect();
        for pl in t.placements() {
            let want = model::predict(t.model(), &[pl], &cores)
                .unwrap()
                .remove(0)
                .points;
            assert_eq!(t.points(pl, &cores).unwrap(), want);
        }
        assert_eq!(
            t.point(p(0, 0), 3).unwrap(),
            t.points(p(0, 0), &[3]).unwrap()[0]
        );
    }

    #[test]
    fn a_realistic_machine_rounds_the_knees_and_declines_past_the_plateau() {
        let (paper, real) = (
            Truth::parse("paper:dahu").unwrap(),
            Truth::parse("realistic:dahu").unwrap(),
        );
        let cps = paper.machine().cores_per_socket;
        let cores: Vec<u32> = (1..=cps).collect();
        let (m, r) = (
            paper.points(p(0, 0), &cores).unwrap(),
            real.points(p(0, 0), &cores).unwrap(),
        );
        // One core and communications alone are the model's.
        assert_eq!(r[0].comp_alone, m[0].comp_alone);
        assert_eq!(r[5].comm_alone, m[5].comm_alone);
        // Below the knee the straight rise is kept.
        assert!((r[2].comp_alone - m[2].comp_alone).abs() < 1e-6 * m[2].comp_alone);
        // At a concave corner of the model's curve the realistic one passes under it.
        let corner = (1..cps as usize - 1)
            .find(|&i| m[i - 1].comp_alone + m[i + 1].comp_alone < 2.0 * m[i].comp_alone - 1.0)
            .expect("computations alone saturate somewhere");
        assert!(r[corner].comp_alone < m[corner].comp_alone - 1.0);
        // Past the plateau computations lose a little per core (no smoothing at the end).
        let last = cps as usize - 1;
        let top = m.iter().map(|x| x.comp_alone).fold(f64::MIN, f64::max);
        let plateau = m.iter().position(|x| x.comp_alone == top).unwrap();
        assert!(
            plateau < last,
            "dahu's computations plateau before its last core"
        );
        let want = m[last].comp_alone * (1.0 - DECLINE_PER_CORE * (last - plateau) as f64);
        assert!((r[last].comp_alone - want).abs() < 1e-6 * want, "{r:?}");
        // Out-of-range requests are refused as the model refuses them.
        assert!(real.points(p(0, 0), &[cps + 1]).is_err());
    }
}
