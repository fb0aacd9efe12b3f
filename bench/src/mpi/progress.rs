//! Progress of a sweep on stderr: a one-line bar on a terminal (point, phase, elapsed, ETA),
//! plain log lines otherwise (batch jobs, CI), nothing with `--quiet`.

use std::io::Write;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Bar,
    Log,
    Quiet,
}

impl Mode {
    /// From the launcher's environment variable (`bar`, `log`, `quiet`), or from whether
    /// stderr is a terminal.
    pub(crate) fn from_env_or_terminal(var: Option<String>, quiet: bool) -> Self {
        use std::io::IsTerminal;
        if quiet {
            return Mode::Quiet;
        }
        match var.as_deref() {
            Some("bar") => Mode::Bar,
            Some("log") => Mode::Log,
            Some("quiet") => Mode::Quiet,
            _ if std::io::stderr().is_terminal() => Mode::Bar,
            _ => Mode::Log,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Bar => "bar",
            Mode::Log => "log",
            Mode::Quiet => "quiet",
        }
    }
}

pub(crate) struct Progress {
    mode: Mode,
    /// The points of the sweep; `None` for an adaptive one, which chooses them as it goes
    /// (it said "point 1/1" at every point).
    total: Option<usize>,
    /// Points finished before this progress began (an adaptive sweep's earlier points).
    before: usize,
    done: usize,
    started: Instant,
    /// The last point whose start the log said: off a terminal, one line when a point
    /// starts, not one per phase (three lines per point, then its result).
    logged: Option<usize>,
}

fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

impl Progress {
    pub(crate) fn new(mode: Mode, total: usize) -> Self {
        Progress {
            mode,
            total: Some(total),
            before: 0,
            done: 0,
            started: Instant::now(),
            logged: None,
        }
    }

    /// The progress of an adaptive sweep, which does not know its number of points:
    /// `before` were measured already.
    pub(crate) fn open(mode: Mode, before: usize) -> Self {
        Progress {
            total: None,
            before,
            ..Progress::new(mode, 0)
        }
    }

    /// Estimated seconds left, from the mean time of the points finished so far.
    fn eta(&self) -> Option<f64> {
        let total = self.total?;
        (self.done > 0).then(|| {
            self.started.elapsed().as_secs_f64() / self.done as f64
                * total.saturating_sub(self.done) as f64
        })
    }

    /// `point 3/13`, or `point 3` of an adaptive sweep.
    fn point(&self) -> String {
        let point = self.before + self.done + 1;
        match self.total {
            Some(total) => format!("point {point}/{}", self.before + total),
            None => format!("point {point} (adaptive)"),
        }
    }

    /// A phase of the point with `cores` computing cores starts.
    pub(crate) fn phase(&mut self, cores: u32, phase: &str) {
        if let Some(text) = self.phase_text(cores, phase) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{text}");
            let _ = err.flush();
        }
    }

    /// What [`Progress::phase`] writes: the bar redrawn on a terminal; off it, one line when
    /// a point starts and nothing for its other phases.
    fn phase_text(&mut self, cores: u32, phase: &str) -> Option<String> {
        let point = self.point();
        let eta = match (self.total, self.eta()) {
            (None, _) => String::new(),
            (Some(_), e) => format!(", ETA {}", e.map_or("--:--".to_string(), clock)),
        };
        let elapsed = clock(self.started.elapsed().as_secs_f64());
        match self.mode {
            Mode::Bar => {
                let width = 20;
                let filled = self
                    .total
                    .map_or(0, |t| width * self.done / t.max(1))
                    .min(width);
                Some(format!(
                    "\r\x1b[2K[{}{}] {point} ({cores} cores): {phase:<22} {elapsed} elapsed{eta}",
                    "#".repeat(filled),
                    "-".repeat(width - filled),
                ))
            }
            Mode::Log if self.logged != Some(self.done) => {
                self.logged = Some(self.done);
                Some(format!(
                    "measure: {point} ({cores} cores) [{elapsed} elapsed{eta}]\n"
                ))
            }
            Mode::Log | Mode::Quiet => None,
        }
    }

    /// A point finished; `summary` is one line of its bandwidths.
    pub(crate) fn point_done(&mut self, summary: &str) {
        self.done += 1;
        let mut err = std::io::stderr().lock();
        match self.mode {
            Mode::Bar => {
                let _ = writeln!(err, "\r\x1b[2K{summary}");
            }
            Mode::Log => {
                let _ = writeln!(err, "measure: {summary}");
            }
            Mode::Quiet => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::mpi::progress::*;

    #[test]
    fn mode_follows_the_launcher_variable() {
        assert_eq!(
            Mode::from_env_or_terminal(Some("bar".into()), false),
            Mode::Bar
        );
        assert_eq!(
            Mode::from_env_or_terminal(Some("log".into()), false),
            Mode::Log
        );
        assert_eq!(
            Mode::from_env_or_terminal(Some("bar".into()), true),
            Mode::Quiet
        );
        assert_eq!(clock(75.4), "1:15");
    }

    /// Issue 46, item 17: off a terminal, a line per phase (three per point, then its
    /// result), and an adaptive sweep said "point 1/1" at every point.
    #[test]
    fn the_log_says_each_point_once_and_an_adaptive_sweep_counts_on() {
        let mut p = Progress::new(Mode::Log, 13);
        let first = p.phase_text(4, "computations alone").unwrap();
        assert!(
            first.starts_with("measure: point 1/13 (4 cores) ["),
            "{first}"
        );
        assert!(first.contains("ETA --:--"), "{first}");
        assert_eq!(p.phase_text(4, "communications alone"), None);
        assert_eq!(p.phase_text(4, "both in parallel"), None);
        p.done = 2;
        assert!(p
            .phase_text(9, "computations alone")
            .unwrap()
            .contains("point 3/13"));
        let mut a = Progress::open(Mode::Log, 4);
        assert_eq!(a.point(), "point 5 (adaptive)");
        assert_eq!(a.eta(), None);
        a.done = 1;
        assert_eq!(a.point(), "point 6 (adaptive)");
    }
}
