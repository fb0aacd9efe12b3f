//! The surfaces of issue 35 under structural mutation, run through the `contention` binary
//! as a user runs it: a model file's `uncertainty` block (intervals upside down, huge,
//! non-numbers, no replicate, a level or a resample count out of range) through `predict
//! --intervals` and `plot --figure stacked`; simulated traces and their CSV, their marks of
//! origin deleted, changed or made to disagree, through `calibrate`, `evaluate`, `plot` and
//! `check` with real measurements or a model of another origin; and simulated or adaptive
//! traces edited (measuring time, configured core counts, the adaptive record, the marks)
//! through `measure --resume`, simulated or real, which must refuse them before any work.
//! File names, host names and marks carry ESC, the C1 CSI (U+009B) and BEL.
//!
//! The binary is run, not the library, because what counts here is what reaches a terminal
//! (every byte of standard output and error) and what a command accepts, whatever code path
//! it takes. A real `measure --resume` never starts MPI: `mpirun` and the other launchers are
//! replaced on its `PATH` by a script that leaves a mark and fails, and a mark is nonsense
//! accepted.

use super::Outcome::{
    self, Accepted, Control, Crashed, Hung, Nonsense, Panicked, Refused, Simulated,
};
use crate::common::run::{command, temp_dir};
use crate::common::SplitMix64;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a terminal obeys: ESC starting a colour, the C1 CSI (U+009B) clearing the screen
/// alone on some terminals, and BEL.
const EVIL: &str = "\x1b[31m\u{9b}2J\x07";

/// The simulated machine every fixture is drawn from.
const SPEC: &str = "paper:henri";

/// Longer than any input may take (the suite's hang limit is 10 s): the command is killed
/// and the input counted as a hang.
const LIMIT: Duration = Duration::from_secs(10);

/// The options every simulated fixture is measured with, and resumed with: one run, whose
/// `points` are what it measured (a trace of runs remakes its `points` from them at every
/// save, so an edit of those is no nonsense to refuse).
const SIMULATE: [&str; 9] = [
    "measure",
    "--simulate",
    SPEC,
    "--runs",
    "1",
    "--max-phase",
    "0.05",
    "-q",
    "--seed",
];

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// Where measurements came from, as a reader must take them.
#[derive(Debug, Clone, PartialEq)]
enum Origin {
    Real,
    Drawn(String),
    /// Marks that disagree, or a CSV whose rows do not all say the same: refused by every
    /// reader.
    Unknown,
}

impl Origin {
    /// Whether measurements of this origin may be compared with a model of `model`'s.
    fn matches(&self, model: &Origin) -> bool {
        *self != Origin::Unknown && *model != Origin::Unknown && self == model
    }
}

/// The fixtures: simulated traces, their CSV, a model of them, an adaptive trace, and a
/// `PATH` whose launchers fail and leave a mark.
pub(super) struct Surfaces {
    dir: PathBuf,
    sim_trace: Value,
    sim_csv: String,
    sim_model: Value,
    adaptive: Value,
    path: std::ffi::OsString,
    launched: PathBuf,
}

fn fixture(args: &[&str]) {
    let o = command().args(args).output().expect("binary runs");
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

impl Surfaces {
    pub(super) fn new() -> Self {
        let dir = temp_dir("robustness-surfaces");
        let s = |p: &Path| p.to_str().unwrap().to_string();
        let (local, remote, adaptive) = (
            dir.join("local.json"),
            dir.join("remote.json"),
            dir.join("adaptive.json"),
        );
        let with = |extra: &[&str]| {
            let mut a: Vec<&str> = SIMULATE.to_vec();
            a.push("1");
            a.extend_from_slice(extra);
            fixture(&a);
        };
        with(&["--numa", "0,0", "--cores", "1..6", "-o", &s(&local)]);
        with(&["--cores", "1..6", "-o", &s(&remote), "--numa", "1,1"]);
        with(&[
            "--numa",
            "0,0",
            "--adaptive",
            "--budget",
            "2s",
            "--precision",
            "0.2",
            "-o",
            &s(&adaptive),
        ]);
        let model = dir.join("model.json");
        fixture(&["calibrate", &s(&local), &s(&remote), "-o", &s(&model)]);
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let launched = dir.join("launched");
        for launcher in ["mpirun", "mpiexec", "srun", "salloc", "orterun", "prterun"] {
            let script = bin.join(launcher);
            std::fs::write(
                &script,
                format!("#!/bin/sh\ntouch '{}'\nexit 1\n", launched.display()),
            )
            .unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mut path = bin.clone().into_os_string();
        path.push(":");
        path.push(std::env::var_os("PATH").unwrap_or_default());
        Surfaces {
            sim_trace: read_json(&local),
            sim_csv: std::fs::read_to_string(local.with_extension("csv")).unwrap(),
            sim_model: read_json(&model),
            adaptive: read_json(&adaptive),
            dir,
            path,
            launched,
        }
    }

    pub(super) fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    /// One input: which surface is picked by `r`. The outcome says what the command did;
    /// `Accepted` of an input that must be refused is turned into nonsense here.
    pub(super) fn run(&self, r: &mut SplitMix64) -> Outcome {
        let work = self.dir.join("work");
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        let _ = std::fs::remove_file(&self.launched);
        let evil_names = r.next_u64().is_multiple_of(3);
        let name = |stem: &str, ext: &str| {
            work.join(if evil_names {
                format!("{stem}{EVIL}.{ext}")
            } else {
                format!("{stem}.{ext}")
            })
        };
        match r.next_u64() % 3 {
            0 => self.uncertainty(r, &name("model", "json"), &work),
            1 => self.origin(r, &name("data", "json"), &name("model", "json"), &work),
            _ => self.resume(r, &name("trace", "json")),
        }
    }

    /// A paper model with an `uncertainty` block, edited, through `predict --intervals` or
    /// `plot --figure stacked`.
    fn uncertainty(&self, r: &mut SplitMix64, path: &Path, work: &Path) -> Outcome {
        let mut v: Value = serde_json::from_str(super::MODEL).unwrap();
        let point = |side: &Value| {
            let mut o = serde_json::Map::new();
            for (k, x) in side.as_object().unwrap() {
                o.insert(k.clone(), json!([x, x]));
            }
            Value::Object(o)
        };
        v["uncertainty"] = json!({
            "method": "bootstrap", "resamples": 1, "seed": 1, "level": 0.95,
            "local": point(&v["local"]), "remote": point(&v["remote"]),
            "replicates": [{"local": v["local"], "remote": v["remote"]}],
        });
        let side = ["local", "remote"][(r.next_u64() % 2) as usize];
        let keys: Vec<String> = v[side].as_object().unwrap().keys().cloned().collect();
        let key = keys[(r.next_u64() % keys.len() as u64) as usize].clone();
        let x = v[side][key.as_str()].as_f64().unwrap();
        let u = &mut v["uncertainty"];
        // A marker replaced in the text by what JSON values cannot hold.
        let mut raw: Option<&str> = None;
        let must_refuse = match r.next_u64() % 12 {
            0 => {
                u[side][key.as_str()] = json!([x + x.abs() + 1.0, x]);
                true
            }
            1 => {
                u[side][key.as_str()] = json!([1e308, -1e308]);
                true
            }
            2 => {
                u[side][key.as_str()] = json!([-1e308, 1e308]);
                key.starts_with("n_") || key == "alpha"
            }
            3 => {
                u[side][key.as_str()] = json!(["@@", x]);
                raw = Some(["NaN", "1e999", "-1e999", "null", "\"NaN\"", "[]"][pick(r, 6)]);
                false
            }
            4 => {
                u["replicates"] = json!([]);
                true
            }
            5 => {
                u["level"] = json!([-1.0, 0.0, 1.0, 1.5, 1e308, -1e-300][pick(r, 6)]);
                true
            }
            6 => {
                u["resamples"] = json!(0);
                true
            }
            7 => {
                u["local"]["n_par_max"] =
                    [json!([0.5, 0.7]), json!([1, 19]), json!([18, 1])][pick(r, 3)].clone();
                true
            }
            8 => {
                let fields = ["method", "resamples", "seed", "level", "local", "remote"];
                u.as_object_mut().unwrap().remove(fields[pick(r, 6)]);
                false
            }
            9 => {
                u["method"] = format!("boot{EVIL}strap").into();
                false
            }
            10 => {
                u["replicates"][0]["local"]["alpha"] = json!(5.0);
                true
            }
            _ => {
                u["level"] = json!("@@");
                raw = Some(["NaN", "1e999", "null", "-0"][pick(r, 4)]);
                false
            }
        };
        let mut text = v.to_string();
        if let Some(raw) = raw {
            text = text.replacen("\"@@\"", raw, 1);
        }
        if r.next_u64().is_multiple_of(4) {
            text = super::mutate(&text, r);
        }
        std::fs::write(path, &text).unwrap();
        let m = path.to_str().unwrap();
        let plots = work.join("plots");
        let henri = repo("tests/data/henri-sweep.csv");
        let format = ["table", "json", "csv"][pick(r, 3)];
        let args: Vec<&str> = if r.next_u64().is_multiple_of(3) {
            vec![
                "plot",
                "-m",
                m,
                &henri,
                "--figure",
                "stacked",
                "-o",
                plots.to_str().unwrap(),
            ]
        } else {
            vec!["predict", "-m", m, "--intervals", "-f", format]
        };
        let (accepted, out) = match self.exec(&args, false) {
            Ok(done) => done,
            Err(outcome) => return outcome,
        };
        if !accepted {
            return Refused;
        }
        if must_refuse {
            return Nonsense(format!("{args:?} accepted a broken uncertainty block"));
        }
        let mut drawn = out.clone();
        for f in std::fs::read_dir(&plots).into_iter().flatten().flatten() {
            drawn.push_str(&std::fs::read_to_string(f.path()).unwrap_or_default());
        }
        match unphysical(&drawn) {
            Some(why) => Nonsense(format!("{args:?}: {why}")),
            None => Accepted,
        }
    }

    /// Simulated measurements, their marks edited, with real ones or a model of another
    /// origin: accepted only where both are of one origin.
    fn origin(&self, r: &mut SplitMix64, data: &Path, model: &Path, work: &Path) -> Outcome {
        let (data, drawn) = match r.next_u64() % 4 {
            0 | 1 => {
                let mut t = self.sim_trace.clone();
                let drawn = edit_marks(&mut t, r);
                std::fs::write(data, t.to_string()).unwrap();
                (data.to_path_buf(), drawn)
            }
            2 => {
                let csv = data.with_extension("csv");
                let (text, drawn) = edit_csv(&self.sim_csv, r);
                std::fs::write(&csv, text).unwrap();
                (csv, drawn)
            }
            _ => {
                let real = [
                    "tests/data/traces/vm-local.json",
                    "tests/data/traces/vm-local.csv",
                ];
                (PathBuf::from(repo(real[pick(r, 2)])), Origin::Real)
            }
        };
        let d = data.to_str().unwrap();
        let (m, origin) = match r.next_u64() % 3 {
            0 => ("paper:henri".to_string(), Origin::Real),
            _ => {
                let mut v = self.sim_model.clone();
                let origin = edit_model_marks(&mut v, r);
                std::fs::write(model, v.to_string()).unwrap();
                (model.to_str().unwrap().to_string(), origin)
            }
        };
        let plots = work.join("plots");
        let out = work.join("fitted.json");
        let henri = repo("tests/data/henri-sweep.csv");
        let (args, must_refuse): (Vec<&str>, bool) = match r.next_u64() % 4 {
            // A simulated input with a real one: any mark left must refuse the pair. With
            // no mark left the file is real to every reader; not calibrated (seconds).
            0 if drawn != Origin::Real => {
                let mut a = vec!["calibrate", d, &henri, "--numa-per-socket", "1"];
                if r.next_u64().is_multiple_of(2) {
                    a.swap(1, 2);
                }
                a.extend(["-o", out.to_str().unwrap()]);
                (a, true)
            }
            0 | 1 => (vec!["evaluate", "-m", &m, d], !drawn.matches(&origin)),
            2 => (
                vec!["plot", "-m", &m, d, "-o", plots.to_str().unwrap()],
                !drawn.matches(&origin),
            ),
            _ => (vec!["check", "-m", &m, d], !drawn.matches(&origin)),
        };
        match self.exec(&args, false) {
            Err(outcome) => outcome,
            Ok((false, _)) => Refused,
            Ok((true, _)) if must_refuse => Simulated(format!(
                "{args:?} accepted measurements of {drawn:?} with a model or input of \
                 {origin:?}"
            )),
            Ok((true, _)) => Accepted,
        }
    }

    /// A simulated or adaptive trace, edited, through `measure --resume`: simulated (which
    /// must refuse what its checks promise to) or real (which must refuse any trace with a
    /// mark of simulation, before any launcher runs).
    fn resume(&self, r: &mut SplitMix64, path: &Path) -> Outcome {
        let adaptive = r.next_u64().is_multiple_of(2);
        let mut t = if adaptive {
            self.adaptive.clone()
        } else {
            self.sim_trace.clone()
        };
        let mut must_refuse = false;
        let mut drawn = Origin::Drawn(SPEC.into());
        match r.next_u64() % 6 {
            0 => {
                let s = [-5.0, 1e308, -0.0, 1e-300, f64::MAX][pick(r, 5)];
                must_refuse = !(0.0..=1e12).contains(&s);
                t["simulation"]["measuring_seconds"] = json!(s);
            }
            1 => {
                let extra: Vec<u64> = match pick(r, 3) {
                    0 => vec![19],
                    1 => vec![999, 4_294_967_295],
                    _ => (1..=(1 + r.next_u64() % 200_000)).collect(),
                };
                must_refuse = true;
                t["config"]["cores"]
                    .as_array_mut()
                    .unwrap()
                    .extend(extra.into_iter().map(Value::from));
            }
            2 if adaptive => {
                let a = &mut t["adaptive"];
                match pick(r, 4) {
                    0 => {
                        t.as_object_mut().unwrap().remove("adaptive");
                    }
                    1 => *a = json!(null),
                    2 => *a = json!({}),
                    _ => {
                        let choices: Vec<Value> =
                            a.as_object().unwrap().values().cloned().collect();
                        a[format!("x{EVIL}")] = Value::Array(choices);
                    }
                }
            }
            2 | 3 => {
                t["points"][pick(r, 2)]["cores"] = json!([19, 999, 4_294_967_295u64][pick(r, 3)]);
                must_refuse = true;
            }
            4 => {
                t["machine"]["hostname"] = format!("node{EVIL}").into();
            }
            _ => drawn = edit_marks(&mut t, r),
        }
        if !matches!(drawn, Origin::Drawn(ref s) if s == SPEC) {
            must_refuse = true;
        }
        std::fs::write(path, t.to_string()).unwrap();
        let p = path.to_str().unwrap();
        let real = r.next_u64().is_multiple_of(3);
        if real && drawn == Origin::Real {
            // No mark left: a real trace to every reader, which a real run would measure.
            return Refused;
        }
        let mut args: Vec<&str> = if real {
            vec!["measure", "-o", p, "--resume", "--cores", "1..2"]
        } else {
            let mut a: Vec<&str> = SIMULATE.to_vec();
            a.extend(["1", "--numa", "0,0", "-o", p, "--resume"]);
            a
        };
        if !real {
            if adaptive && !r.next_u64().is_multiple_of(4) {
                args.extend(["--adaptive", "--budget", "2s", "--precision", "0.2"]);
            } else if adaptive && t.get("adaptive").is_some_and(|a| !a.is_null()) {
                // An adaptive sweep resumed as a plain one is refused (it would measure
                // points its record does not list).
                must_refuse = true;
            } else {
                args.extend(["--cores", "1..6"]);
            }
        }
        let outcome = match self.exec(&args, real) {
            Err(outcome) => return outcome,
            Ok((false, _)) => Refused,
            Ok((true, _)) if real => Simulated(format!(
                "a real `measure --resume` accepted a trace of {drawn:?}"
            )),
            Ok((true, _)) if must_refuse => Nonsense(format!("{args:?} accepted an edited trace")),
            Ok((true, _)) => Accepted,
        };
        if self.launched.exists() {
            return Simulated(format!(
                "{args:?} started a launcher for a trace of {drawn:?}"
            ));
        }
        outcome
    }

    /// Runs the binary with `args`: whether it exited 0 and what it printed, or the outcome
    /// of a run that printed a raw control character, panicked, crashed or ran past
    /// [`LIMIT`]. `launchers`: with the failing launchers first on `PATH`.
    fn exec(&self, args: &[&str], launchers: bool) -> Result<(bool, String), Outcome> {
        let mut c = command();
        c.args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        if launchers {
            c.env("PATH", &self.path);
        }
        let start = Instant::now();
        let mut child = c.spawn().expect("binary runs");
        // Read both pipes while waiting, so that a full pipe cannot stall the command.
        fn reader(
            mut pipe: impl std::io::Read + Send + 'static,
        ) -> std::thread::JoinHandle<Vec<u8>> {
            std::thread::spawn(move || {
                let mut b = Vec::new();
                let _ = pipe.read_to_end(&mut b);
                b
            })
        }
        let out_t = reader(child.stdout.take().unwrap());
        let err_t = reader(child.stderr.take().unwrap());
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Hung(format!("{args:?} ran past {} s", LIMIT.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out_t.join().unwrap()),
            String::from_utf8_lossy(&err_t.join().unwrap())
        );
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Err(Crashed(format!("{args:?} killed by signal {signal}")));
        }
        if status.code() == Some(101) {
            return Err(Panicked(format!("{args:?}: {text}")));
        }
        if let Some(c) = text
            .chars()
            .find(|&c| c.is_control() && c != '\n' && c != '\t')
        {
            return Err(Control(format!(
                "{args:?} printed {c:?}: {}",
                contention::error::escape(&text)
            )));
        }
        // CONTENTION_FUZZ_VERBOSE: what each command said, to see why inputs are refused.
        if std::env::var_os("CONTENTION_FUZZ_VERBOSE").is_some() {
            let end = text.char_indices().nth(300).map_or(text.len(), |(i, _)| i);
            eprintln!(
                "SURFACE {args:?} -> {status}: {}",
                text[..end].replace('\n', " ")
            );
        }
        Ok((status.success(), text))
    }
}

fn pick(r: &mut SplitMix64, n: usize) -> usize {
    (r.next_u64() % n as u64) as usize
}

/// What an accepted command printed or drew that no physical prediction holds: a
/// non-number, or a number of more digits than any bandwidth or core count.
fn unphysical(text: &str) -> Option<String> {
    for bad in ["NaN", "inf,", "inf ", "null"] {
        if let Some(at) = text.find(bad) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(60)
                .map_or(0, |(i, _)| i);
            return Some(format!(
                "{bad:?} in ...{}...",
                &text[from..(at + 20).min(text.len())]
            ));
        }
    }
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run >= 25 {
            return Some("a number of 25 digits or more".into());
        }
    }
    None
}

/// Edits a simulated trace's two marks (`machine.simulated`, `simulation.machine`): deleted,
/// changed, made to disagree, or hostile; the origin a reader must then give it.
fn edit_marks(t: &mut Value, r: &mut SplitMix64) -> Origin {
    let other = ["realistic:henri", "", "paper:dahu", EVIL][pick(r, 4)];
    let hostile = format!("paper:{EVIL}");
    match pick(r, 8) {
        0 => {
            t["machine"].as_object_mut().unwrap().remove("simulated");
            Origin::Unknown
        }
        1 => {
            t.as_object_mut().unwrap().remove("simulation");
            Origin::Unknown
        }
        2 => {
            t["machine"].as_object_mut().unwrap().remove("simulated");
            t.as_object_mut().unwrap().remove("simulation");
            Origin::Real
        }
        3 => {
            t["simulation"]["machine"] = other.into();
            Origin::Unknown
        }
        4 => {
            t["machine"]["simulated"] = other.into();
            Origin::Unknown
        }
        5 => {
            t["simulation"]["machine"] = hostile.clone().into();
            t["machine"]["simulated"] = hostile.clone().into();
            Origin::Drawn(hostile)
        }
        6 => {
            t["machine"]["simulated"] = json!(null);
            Origin::Unknown
        }
        _ => {
            t["machine"]["hostname"] = format!("node{EVIL}").into();
            Origin::Drawn(SPEC.into())
        }
    }
}

/// Edits the marks of a model of simulated traces (`calibration.measured_machine.simulated`,
/// `calibration.inputs[].simulated`); the origin a reader must then give it.
fn edit_model_marks(v: &mut Value, r: &mut SplitMix64) -> Origin {
    let c = &mut v["calibration"];
    match pick(r, 4) {
        0 => Origin::Drawn(SPEC.into()),
        1 => {
            // Every mark gone: a model of real measurements to every reader.
            c["measured_machine"]
                .as_object_mut()
                .map(|m| m.remove("simulated"));
            for i in c["inputs"].as_array_mut().into_iter().flatten() {
                i.as_object_mut().map(|m| m.remove("simulated"));
            }
            Origin::Real
        }
        2 => {
            c["measured_machine"]["simulated"] = "realistic:henri".into();
            Origin::Unknown
        }
        _ => {
            c["measured_machine"]
                .as_object_mut()
                .map(|m| m.remove("simulated"));
            Origin::Drawn(SPEC.into())
        }
    }
}

/// Edits the `simulated` column of a simulated run's CSV: deleted, changed, emptied on
/// some rows, or hostile; the origin a reader must then give the file.
fn edit_csv(text: &str, r: &mut SplitMix64) -> (String, Origin) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let rows = lines.len() - 1;
    let set = |lines: &mut Vec<String>, row: usize, to: &str| {
        let (head, _) = lines[row].rsplit_once(',').unwrap();
        lines[row] = format!("{head},{to}");
    };
    let origin = match pick(r, 6) {
        0 => {
            for l in &mut lines {
                *l = l.rsplit_once(',').unwrap().0.to_string();
            }
            Origin::Real
        }
        1 => {
            for row in 1..=rows {
                set(&mut lines, row, "realistic:henri");
            }
            Origin::Drawn("realistic:henri".into())
        }
        2 => {
            set(&mut lines, 1 + pick(r, rows), "");
            Origin::Unknown
        }
        3 => {
            for row in 1..=rows {
                set(&mut lines, row, "");
            }
            Origin::Real
        }
        4 => {
            set(&mut lines, 1 + pick(r, rows), &format!("x{EVIL}"));
            Origin::Unknown
        }
        _ => Origin::Drawn(SPEC.into()),
    };
    (lines.join("\n") + "\n", origin)
}
