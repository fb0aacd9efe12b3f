//! `contention calibrate`: read the measurements, fit both sides of the model, tell the user
//! what was used and how well it fits, write the model file.

use crate::calibrate::{self, Options, SideFit};
use crate::cli::CalibrateArgs;
use crate::error::Result;
use crate::export;
use crate::io::{inputs, output};
use crate::model::Params;
use std::time::{SystemTime, UNIX_EPOCH};

pub fn run(args: &CalibrateArgs) -> Result<()> {
    let inputs = inputs::read_all(&args.inputs)?;
    let opts = Options {
        numa_per_socket: args.numa_per_socket,
        numa_nodes: args.numa_nodes,
        cores_per_socket: args.cores_per_socket,
        name: args.name.clone(),
        tolerance: args.tolerance,
        local_only: args.local_only,
        date: rfc3339_utc(SystemTime::now()),
    };
    let (calibrated, notes) = calibrate::calibrate(&inputs, &opts)?;
    for note in &notes {
        eprintln!("note: {note}");
    }
    let m = &calibrated.model;
    eprintln!(
        "machine {}: {} NUMA node(s), {} per socket, {} cores per socket",
        m.machine.name, m.machine.numa_nodes, m.machine.numa_per_socket, m.machine.cores_per_socket
    );
    let c = &calibrated.calibration;
    report_side("local", &m.local, &c.local);
    if let (Some(p), Some(fit)) = (&m.remote, &c.remote) {
        report_side("remote", p, fit);
    }
    output::emit(args.output.as_deref(), &export::json::render(&calibrated))?;
    if let Some(path) = &args.output {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Which placement and files a side came from, its parameters, and its fit.
fn report_side(side: &str, p: &Params, fit: &SideFit) {
    let cores: Vec<String> = fit.cores.iter().map(u32::to_string).collect();
    eprintln!(
        "{side}: placement {},{} from {} (cores {})",
        fit.comp_numa,
        fit.comm_numa,
        fit.sources.join(", "),
        cores.join(",")
    );
    eprintln!("  {}", calibrate::describe(p));
    let e = &fit.mape_percent;
    eprintln!(
        "  fit on its own sweep, MAPE: comp_parallel {:.2} %, comm_parallel {:.2} %, \
         comp_alone {:.2} %, comm_alone {:.2} %",
        e.comp_parallel, e.comm_parallel, e.comp_alone, e.comm_alone,
    );
    let t = &fit.tolerance;
    eprintln!(
        "  tie tolerance: comp_alone {:.2} %, total in parallel {:.2} %, comm_parallel {:.2} %",
        t.comp_alone * 100.0,
        t.total_parallel * 100.0,
        t.comm_parallel * 100.0
    );
}

/// `t` as RFC 3339 in UTC, to the second (`2026-01-31T12:00:00Z`).
fn rfc3339_utc(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, mo, d) = civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant,
/// "chrono-Compatible Low-Level Date Algorithms", `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_rfc3339_utc() {
        let at = |s| rfc3339_utc(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century year) 12:34:56.
        assert_eq!(at(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(at(1_798_761_599), "2026-12-31T23:59:59Z");
    }
}
