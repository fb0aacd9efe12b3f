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
    total: usize,
    done: usize,
    started: Instant,
}

fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

impl Progress {
    pub(crate) fn new(mode: Mode, total: usize) -> Self {
        Progress {
            mode,
            total,
            done: 0,
            started: Instant::now(),
        }
    }

    /// Estimated seconds left, from the mean time of the points finished so far.
    fn eta(&self) -> Option<f64> {
        (self.done > 0).then(|| {
            self.started.elapsed().as_secs_f64() / self.done as f64
                * (self.total - self.done) as f64
        })
    }

    /// A phase of the point with `cores` computing cores starts.
    pub(crate) fn phase(&mut self, cores: u32, phase: &str) {
        let point = self.done + 1;
        let eta = self.eta().map_or("--:--".to_string(), clock);
        let elapsed = clock(self.started.elapsed().as_secs_f64());
        let mut err = std::io::stderr().lock();
        match self.mode {
            Mode::Bar => {
                let width = 20;
                let filled = width * self.done / self.total.max(1);
                let _ = write!(
                    err,
                    "\r\x1b[2K[{}{}] point {point}/{} ({cores} cores): {phase:<22} {elapsed} elapsed, ETA {eta}",
                    "#".repeat(filled),
                    "-".repeat(width - filled),
                    self.total
                );
                let _ = err.flush();
            }
            Mode::Log => {
                let _ = writeln!(
                    err,
                    "measure: point {point}/{} ({cores} cores): {phase} [{elapsed} elapsed, ETA {eta}]",
                    self.total
                );
            }
            Mode::Quiet => {}
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
}
