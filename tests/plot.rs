//! `contention plot` end to end: every figure for the paper's henri-subnuma model (16
//! placements) and for traces, checked to be valid files (SVG parses as XML, PNG decodes at the
//! figure's size), with the grid's panels counted and the pixels looked at.
//!
//! The figures are left in `target/tmp/plot-tests/<test>/` so a person can open them.

use crate::common::{
    contention, machine, phase, placement, predicted_rows, stderr, trace, SplitMix64,
};
use contention::io::{model_file, tidy_csv, trace_file};
use contention::model;
use contention::plot::data::Measurements;
use contention::plot::grid::Grid;
use contention::plot::stacked::Stacked;
use contention::plot::sweep::Sweep;
use contention::plot::{self, Figure, ImageFormat, PNG_DPI};
use contention::trace::Trace;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Real traces to draw instead of the synthetic ones, as paths relative to the crate root
/// (e.g. `&["tests/data/trace-0-0.json"]`). Empty until `contention measure` has written one
/// on this machine; every test below then draws them instead (they must fit the
/// henri-subnuma model: NUMA nodes 0..3 and at most 18 cores).
const REAL_TRACES: &[&str] = &[];

const MODEL: &str = "paper:henri-subnuma";

/// A fresh directory for one test's figures, kept after the test for inspection.
fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("plot-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The trace files the tests draw: [`REAL_TRACES`], or synthetic traces of the two
/// calibration placements of henri-subnuma written into `dir`.
fn trace_files(dir: &Path) -> Vec<PathBuf> {
    if !REAL_TRACES.is_empty() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        return REAL_TRACES.iter().map(|p| root.join(p)).collect();
    }
    [(0, 0), (2, 2)]
        .into_iter()
        .map(|(comp, comm)| {
            let path = dir.join(format!("trace-{comp}-{comm}.json"));
            trace_file::write(&path, &synthetic_trace(comp, comm)).unwrap();
            path
        })
        .collect()
}

/// A trace of `(comp, comm)` on henri-subnuma, 1 to 18 cores: the model's prediction with
/// +-2 % noise (computations: 5 iterations of each thread; communications: 10 messages),
/// outliers at 6 cores (computations in parallel) and 12 cores (communications in parallel),
/// built by the shared trace builder with the structs `measure` writes.
fn synthetic_trace(comp_numa: u32, comm_numa: u32) -> Trace {
    let m = model_file::load(MODEL).unwrap();
    let cores: Vec<u32> = (1..=18).collect();
    let rows = predicted_rows(&m, placement(comp_numa, comm_numa), &cores);
    let mut rng = SplitMix64(u64::from(comp_numa * 7 + comm_numa + 1));
    let host = machine("henri-synthetic", 18, 2);
    let mut t = trace(host, &rows, 10, 0.02, &mut rng);
    for (p, r) in t.points.iter_mut().zip(&rows) {
        let iterations = 5 * r.cores as usize;
        p.comp_alone = phase(r.comp_alone, r.cores, iterations, 0.02, &mut rng);
        p.comp_parallel = phase(r.comp_parallel, r.cores, iterations, 0.02, &mut rng);
    }
    // Sample `i` of a computation phase is thread `i % cores`: thread 0's third iteration,
    // half as fast (a thread descheduled once).
    t.points[5].comp_parallel.samples[2 * 6].mbps *= 0.5;
    // The fourth message, 30 % slower.
    t.points[11].comm_parallel.samples[3].mbps *= 0.7;
    t
}

/// Parses an SVG file as XML (roxmltree refuses anything not well-formed) and returns the
/// text, for the caller to parse again into a document.
fn svg_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    text
}

/// The `width` and `height` attributes of an SVG document.
fn svg_size(doc: &roxmltree::Document) -> (u32, u32) {
    let attr = |name| {
        doc.root_element()
            .attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    (attr("width"), attr("height"))
}

/// The trimmed contents of every `<text>` element, with whether it is bold.
fn svg_texts(doc: &roxmltree::Document) -> Vec<(String, bool)> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            (
                n.text().unwrap_or("").trim().to_string(),
                n.attribute("font-weight") == Some("bold"),
            )
        })
        .collect()
}

struct Png {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Png {
    fn pixel(&self, x: u32, y: u32) -> (u8, u8, u8) {
        let i = (y * self.width + x) as usize * 3;
        (self.rgb[i], self.rgb[i + 1], self.rgb[i + 2])
    }

    fn count(&self, rows: std::ops::Range<u32>, pred: impl Fn((u8, u8, u8)) -> bool) -> usize {
        rows.flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .filter(|&(x, y)| pred(self.pixel(x, y)))
            .count()
    }
}

/// Decodes a PNG fully (every row, CRCs checked), checking it records 300 dpi.
fn decode_png(path: &Path) -> Png {
    let file = std::fs::File::open(path).unwrap();
    let mut reader = png::Decoder::new(file)
        .read_info()
        .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
    let dims = reader.info().pixel_dims.expect("pHYs chunk");
    assert_eq!(dims.unit, png::Unit::Meter);
    assert_eq!(dims.xppu, (f64::from(PNG_DPI) / 0.0254).round() as u32);
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    Png {
        width: info.width,
        height: info.height,
        rgb: buf,
    }
}

/// The files the command said it wrote, in order.
fn written(o: &Output) -> Vec<PathBuf> {
    stderr(o)
        .lines()
        .filter_map(|l| l.strip_prefix("wrote "))
        .map(PathBuf::from)
        .collect()
}

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn model_only_figures_are_valid_svg_and_png_of_the_figure_size() {
    let m = model_file::load(MODEL).unwrap();
    let none = Measurements::default();
    let expected = [
        (
            "henri-subnuma-grid",
            Grid::new(&m, MODEL, &none).unwrap().size(),
        ),
        (
            "henri-subnuma-stacked-local",
            Stacked::all(&m, MODEL, &none)[0].size(),
        ),
        (
            "henri-subnuma-stacked-remote",
            Stacked::all(&m, MODEL, &none)[1].size(),
        ),
    ];
    let dir = out_dir("model-only");
    for format in ["svg", "png"] {
        let o = contention(&[
            "plot",
            "--model",
            MODEL,
            "-o",
            dir.to_str().unwrap(),
            "--format",
            format,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout.is_empty(), "figures go to files, not stdout");
        let files = written(&o);
        let want: Vec<String> = expected
            .iter()
            .map(|(n, _)| format!("{n}.{format}"))
            .collect();
        assert_eq!(names(&files), want, "no sweep without a trace");
        for (path, (_, size)) in files.iter().zip(&expected) {
            assert!(path.starts_with(&dir));
            if format == "svg" {
                let text = svg_text(path);
                let doc = roxmltree::Document::parse(&text).unwrap();
                assert_eq!(svg_size(&doc), *size, "{}", path.display());
            } else {
                let png = decode_png(path);
                assert_eq!((png.width, png.height), *size, "{}", path.display());
            }
        }
    }
    // Nothing half-written is left behind.
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with('.')));
}

#[test]
fn the_grid_has_one_panel_per_placement_and_marks_the_two_calibrations() {
    for (name, side, calibrations) in [
        (
            "paper:henri-subnuma",
            4,
            vec!["comp NUMA 0, comm NUMA 0", "comp NUMA 2, comm NUMA 2"],
        ),
        (
            "paper:henri",
            2,
            vec!["comp NUMA 0, comm NUMA 0", "comp NUMA 1, comm NUMA 1"],
        ),
    ] {
        let m = model_file::load(name).unwrap();
        let grid = Grid::new(&m, name, &Measurements::default()).unwrap();
        let svg = String::from_utf8(plot::render(&grid, ImageFormat::Svg).unwrap()).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let texts = svg_texts(&doc);
        let panels: Vec<&(String, bool)> = texts
            .iter()
            .filter(|(t, _)| t.starts_with("comp NUMA "))
            .collect();
        assert_eq!(panels.len(), side * side, "{name}");
        assert_eq!(panels.len(), model::all_placements(&m).len());
        // Row by row: the communication node is the row, as in the paper.
        assert_eq!(panels[1].0, "comp NUMA 1, comm NUMA 0");
        assert_eq!(panels[side].0, "comp NUMA 0, comm NUMA 1");
        let bold: Vec<&str> = panels
            .iter()
            .filter(|(_, b)| *b)
            .map(|(t, _)| t.as_str())
            .collect();
        assert_eq!(bold, calibrations, "{name}");
        // Titles say the machine and the units; axes say what they measure.
        assert!(texts
            .iter()
            .any(|(t, _)| t.starts_with(&m.machine.name) && t.contains("(MB/s)")));
        for axis in [
            "Network bandwidth (MB/s)",
            "Computation memory bandwidth (MB/s)",
            "Number of computing cores",
        ] {
            assert!(texts.iter().any(|(t, _)| t == axis), "{axis}");
        }
        // Predictions only: no measured markers.
        assert_eq!(
            doc.descendants()
                .filter(|n| n.has_tag_name("circle"))
                .count(),
            0
        );
    }
}

#[test]
fn traces_give_measured_points_stacked_measurements_and_sweeps() {
    let dir = out_dir("traces");
    let traces = trace_files(&dir);
    let figures = dir.join("figures");
    for format in ["png", "svg"] {
        let mut args = vec![
            "plot",
            "--model",
            MODEL,
            "-o",
            figures.to_str().unwrap(),
            "-f",
            format,
            "--csv",
        ];
        args.extend(traces.iter().map(|p| p.to_str().unwrap()));
        let o = contention(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let files = written(&o);
        let images: Vec<&PathBuf> = files
            .iter()
            .filter(|p| p.extension().unwrap() == format)
            .collect();
        // Grid, two stacked views, one sweep per trace.
        assert_eq!(images.len(), 3 + traces.len(), "{:?}", names(&files));
        for t in &traces {
            let stem = t.file_stem().unwrap().to_string_lossy();
            assert!(names(&files).contains(&format!("{stem}-sweep.{format}")));
            assert!(names(&files).contains(&format!("{stem}-sweep.csv")));
        }
        for img in images {
            if format == "svg" {
                svg_text(img);
            } else {
                let png = decode_png(img);
                assert!(png.width > 1000 && png.height > 800);
            }
        }
    }

    // The CSV beside the grid is exactly the measurements drawn: the traces' medians.
    let loaded: Vec<Trace> = traces
        .iter()
        .map(|p| trace_file::read(p).unwrap())
        .collect();
    let rows: Vec<_> = loaded.iter().flat_map(|t| t.tidy_rows()).collect();
    let measured = tidy_csv::read(&figures.join("henri-subnuma-grid-measured.csv"))
        .unwrap()
        .rows;
    let expected = Measurements::from_rows(&rows).rows();
    assert_eq!(measured.len(), expected.len());
    for (a, b) in measured.iter().zip(&expected) {
        assert_eq!(
            (a.comp_numa, a.comm_numa, a.cores),
            (b.comp_numa, b.comm_numa, b.cores)
        );
        assert!((a.comm_parallel - b.comm_parallel).abs() < 0.06);
    }
    let model_rows = tidy_csv::read(&figures.join("henri-subnuma-grid-model.csv"))
        .unwrap()
        .rows;
    assert_eq!(model_rows.len(), 16 * 18);

    // Measured markers: a circle per stream and core count measured alone.
    let grid = svg_text(&figures.join("henri-subnuma-grid.svg"));
    let doc = roxmltree::Document::parse(&grid).unwrap();
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert!(
        circles >= 2 * rows.len(),
        "{circles} markers for {} rows",
        rows.len()
    );

    // The stacked view of a measured calibration placement draws the measurements.
    let stacked = std::fs::read_to_string(figures.join("henri-subnuma-stacked-local.csv")).unwrap();
    if loaded
        .iter()
        .any(|t| (t.config.comp_numa, t.config.comm_numa) == (0, 0))
    {
        assert!(
            stacked.lines().skip(1).all(|l| l.ends_with(",measured")),
            "{stacked}"
        );
    }

    // Each sweep CSV has both streams, both phases, every measured core count.
    for (t, path) in loaded.iter().zip(&traces) {
        let stem = path.file_stem().unwrap().to_string_lossy();
        let csv = std::fs::read_to_string(figures.join(format!("{stem}-sweep.csv"))).unwrap();
        assert_eq!(csv.lines().count(), 1 + 4 * t.points.len());
    }
}

#[test]
fn sweep_boxes_show_the_outliers_of_the_synthetic_trace() {
    if !REAL_TRACES.is_empty() {
        return; // the outliers are those planted in the synthetic trace
    }
    let sweep = Sweep::new(&synthetic_trace(0, 0), "trace-0-0.json");
    let at = |stats: &[contention::plot::sweep::BoxStats], cores, mode| {
        stats
            .iter()
            .find(|b| b.cores == cores && b.mode == mode)
            .unwrap()
            .clone()
    };
    use contention::plot::sweep::Mode;
    let slow_thread = at(&sweep.comp, 6, Mode::Parallel);
    assert_eq!(slow_thread.outliers.len(), 1, "{slow_thread:?}");
    assert!(slow_thread.outliers[0] < 0.6 * slow_thread.median);
    assert!(at(&sweep.comp, 6, Mode::Alone).outliers.is_empty());
    let slow_message = at(&sweep.comm, 12, Mode::Parallel);
    assert_eq!(slow_message.outliers.len(), 1, "{slow_message:?}");
    assert!(at(&sweep.comm, 11, Mode::Parallel).outliers.is_empty());
    // Per core: 6 threads x 5 iterations.
    assert_eq!(slow_thread.count, 30);
    assert!(
        sweep.comm_scale.bottom > 0.0,
        "the sweep zooms on the spread"
    );
}

#[test]
fn png_pixels_show_text_and_both_streams() {
    let dir = out_dir("pixels");
    let traces = trace_files(&dir);
    let m = model_file::load(MODEL).unwrap();
    let rows: Vec<_> = traces
        .iter()
        .flat_map(|p| trace_file::read(p).unwrap().tidy_rows())
        .collect();
    let grid = Grid::new(&m, MODEL, &Measurements::from_rows(&rows)).unwrap();
    let bytes = plot::render(&grid, ImageFormat::Png).unwrap();
    let path = dir.join("grid.png");
    std::fs::write(&path, bytes).unwrap();
    let png = decode_png(&path);
    assert_eq!(png.pixel(0, 0), (255, 255, 255), "white background");
    // The title (top 70 rows) is dark text, drawn from the embedded font.
    let ink = png.count(0..70, |(r, g, b)| r < 80 && g < 80 && b < 80);
    assert!(ink > 2000, "{ink} dark pixels in the title");
    // Both streams' colours, as lines and markers, over the panels.
    let all = 0..png.height;
    let blue = png.count(all.clone(), |c| c == (0x1f, 0x77, 0xb4));
    let orange = png.count(all, |c| c == (0xff, 0x7f, 0x0e));
    assert!(
        blue > 20_000 && orange > 20_000,
        "blue {blue}, orange {orange}"
    );
}

/// Runs `plot` on a tidy CSV file `name` holding `rows` (after the header), with `extra`
/// arguments first; asserts it is refused with status 2 and returns the message.
fn refused(dir: &Path, name: &str, rows: &str, extra: &[&str]) -> String {
    let path = dir.join(name);
    let header = "comp_numa,comm_numa,cores,comp_alone,comm_alone,comp_parallel,comm_parallel";
    std::fs::write(&path, format!("{header}\n{rows}")).unwrap();
    let mut args = vec!["plot", "-m", MODEL, "-o", dir.to_str().unwrap()];
    args.extend(extra);
    args.push(path.to_str().unwrap());
    let o = contention(&args);
    assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
    stderr(&o)
}

#[test]
fn bad_inputs_are_refused_with_status_2_naming_the_file() {
    let dir = out_dir("errors");
    let missing = dir.join("missing.json");
    let o = contention(&[
        "plot",
        "-m",
        MODEL,
        "-o",
        dir.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.json"), "{}", stderr(&o));

    let e = refused(&dir, "far.csv", "5,5,1,4000,11000,3900,10000\n", &[]);
    assert!(
        e.contains("far.csv") && e.contains("5,5") && e.contains("another machine"),
        "{e}"
    );
    let e = refused(&dir, "many.csv", "0,0,32,4000,11000,3900,10000\n", &[]);
    assert!(e.contains("many.csv") && e.contains("32"), "{e}");
    // Issue 46, item 7: a trace's point beyond the model's socket (an edited trace) was
    // refused with `predict`'s `--ncores` as the fix, and one at 0 cores was drawn.
    for n in [0, 19] {
        let path = dir.join(format!("edited-{n}.json"));
        let mut t = synthetic_trace(0, 0);
        t.points[0].cores = n;
        t.complete = false;
        trace_file::write(&path, &t).unwrap();
        let o = contention(&[
            "plot",
            "-m",
            MODEL,
            "-o",
            dir.to_str().unwrap(),
            path.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{n}: {}", stderr(&o));
        let e = stderr(&o);
        // Every reader's check of a trace's points refuses it first (issue 46), as
        // calibrate does: beyond the machine's socket, or no core at all.
        let said = if n == 0 {
            "points[0]: a point has 0 computing cores".to_string()
        } else {
            format!("points[0]: at {n} cores, beyond the machine's 18 cores per socket")
        };
        assert!(
            e.contains(&format!("edited-{n}.json: {said}")) && !e.contains("--ncores"),
            "{e}"
        );
    }
    let e = refused(&dir, "broken.csv", "0,0,1,4000\n", &[]);
    assert!(e.contains("broken.csv: line 2"), "{e}");
    let e = refused(
        &dir,
        "good.csv",
        "0,0,1,4000,11000,3900,10000\n",
        &["--figure", "sweep"],
    );
    assert!(e.contains("no trace JSON"), "{e}");

    // Nothing was drawn by the refused runs.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn figure_selection_draws_only_what_is_asked() {
    let dir = out_dir("selection");
    let traces = trace_files(&dir);
    let out = dir.join("out");
    let o = contention(&[
        "plot",
        "-m",
        MODEL,
        "-o",
        out.to_str().unwrap(),
        "--figure",
        "sweep",
        traces[0].to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stem = traces[0].file_stem().unwrap().to_string_lossy();
    assert_eq!(names(&written(&o)), vec![format!("{stem}-sweep.svg")]);
    let o = contention(&[
        "plot",
        "-m",
        "paper:henri",
        "-o",
        out.to_str().unwrap(),
        "--figure",
        "grid,stacked",
        "--csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        names(&written(&o)),
        vec![
            "henri-grid.svg",
            "henri-grid-model.csv",
            "henri-stacked-local.svg",
            "henri-stacked-local.csv",
            "henri-stacked-remote.svg",
            "henri-stacked-remote.csv",
        ]
    );
}

#[test]
fn a_real_trace_of_this_machine_draws_every_figure() {
    // Measured on the CI machine (tests/data/traces) and calibrated by `contention calibrate`
    // (tests/data/expected, kept current by tests/regression.rs).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("tests/data/expected/vm-local.model.json");
    let trace = root.join("tests/data/traces/vm-local.json");
    for format in ["svg", "png"] {
        let dir = out_dir(&format!("real-{format}"));
        let o = contention(&[
            "plot",
            "--model",
            model.to_str().unwrap(),
            trace.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
            "--format",
            format,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let files = written(&o);
        assert_eq!(
            names(&files),
            [
                format!("vm-grid.{format}"),
                format!("vm-stacked-local.{format}"),
                format!("vm-local-sweep.{format}")
            ],
        );
        for f in &files {
            if format == "svg" {
                let text = svg_text(f);
                let doc = roxmltree::Document::parse(&text).unwrap();
                let (w, h) = svg_size(&doc);
                assert!(w > 0 && h > 0);
                assert!(svg_texts(&doc).iter().any(|(t, _)| t.contains("MB/s")));
            } else {
                let png = decode_png(f);
                assert!(png.width > 0 && png.height > 0);
            }
        }
    }
}

/// Issue 46, F5: a phase whose `ci95` reached 2e12 (or 1e308) panicked in the grid, "attempt
/// to subtract with overflow" (exit 101; a release build wrapped the pixel silently). The
/// figure's arithmetic holds for any value; whether such a trace is refused as impossible is
/// the readers' rule, so either a figure or a refusal is right here, never a panic.
#[test]
fn an_interval_far_beyond_the_axis_draws_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("tests/data/expected/vm-local.model.json");
    let text = std::fs::read_to_string(root.join("tests/data/traces/vm-local.json")).unwrap();
    let dir = out_dir("far-interval");
    for hi in [2e12, 1e308] {
        let mut t: serde_json::Value = serde_json::from_str(&text).unwrap();
        let median = t["points"][0]["comp_parallel"]["summary"]["median"].clone();
        t["points"][0]["comp_parallel"]["ci95"] = serde_json::json!([median, hi]);
        t["points"][1]["comm_parallel"]["ci95"] = serde_json::json!([-5.0, hi]);
        let trace = dir.join("trace-far.json");
        std::fs::write(&trace, t.to_string()).unwrap();
        let o = contention(&[
            "plot",
            "--model",
            model.to_str().unwrap(),
            trace.to_str().unwrap(),
            "--figure",
            "grid",
            "-o",
            dir.to_str().unwrap(),
        ]);
        assert!(
            matches!(o.status.code(), Some(0 | 2)) && !stderr(&o).contains("panicked"),
            "{hi}: {:?} {}",
            o.status,
            stderr(&o)
        );
    }
}

/// Names a figure may be handed from a file or a machine, one per class of character no
/// figure may hold raw: C0 (ESC, U+0001, vertical tab), C1, the bidi marks, override and
/// isolates, the Arabic letter mark, the byte order mark, a noncharacter XML refuses.
const HOSTILE_NAMES: &[&str] = &[
    "esc\u{1b}[31m",
    "ctl\u{1}\u{b}",
    "c1\u{9b}2J",
    "\u{202e}gnp.",
    "iso\u{2066}a\u{2069}",
    "mark\u{200e}\u{200f}\u{61c}",
    "bom\u{feff}",
    "non\u{ffff}",
];

/// Whether `text` holds a character the figures must escape (newline aside: plotters ends
/// its own elements with one).
fn raw_hidden(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| c != '\n' && contention::error::needs_escape(c))
}

/// Issue 46, N5: a trace file named `esc\x1b[31m.json` gave a sweep figure titled "Samples of
/// esc^[[31m.json" with the ESC raw, not well-formed XML (U+0001 and U+000B the same), and a
/// machine named `$'\u202egnp.'` put the override raw in every SVG. Every text a figure draws
/// goes through the messages' escaper: well-formed, nothing raw, the escape shown.
#[test]
fn names_with_control_or_format_characters_are_drawn_escaped() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("tests/data/expected/vm-local.model.json");
    let dir = out_dir("hostile-names");
    let traces: Vec<PathBuf> = HOSTILE_NAMES
        .iter()
        .map(|name| {
            let t = dir.join(format!("{name}.json"));
            std::fs::copy(root.join("tests/data/traces/vm-local.json"), &t).unwrap();
            t
        })
        .collect();
    let figures = dir.join("figures");
    let mut args = vec![
        "plot".to_string(),
        "--model".into(),
        model.to_str().unwrap().into(),
        "-o".into(),
        figures.to_str().unwrap().into(),
    ];
    args.extend(traces.iter().map(|t| t.to_str().unwrap().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = contention(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut titles = Vec::new();
    for entry in std::fs::read_dir(&figures).unwrap() {
        let path = entry.unwrap().path();
        let text = svg_text(&path);
        assert_eq!(raw_hidden(&text), None, "{}", path.display());
        let doc = roxmltree::Document::parse(&text).unwrap();
        titles.extend(
            svg_texts(&doc)
                .into_iter()
                .filter(|(t, _)| t.starts_with("Samples of "))
                .map(|(t, _)| t),
        );
    }
    for name in HOSTILE_NAMES {
        let shown = contention::error::escape_line(&format!("{name}.json"));
        assert!(
            titles.iter().any(|t| t.contains(&shown)),
            "{shown} in {titles:?}"
        );
    }

    // A machine's name and a source drawn by every figure, in SVG and PNG alike.
    for name in HOSTILE_NAMES {
        let mut m = model_file::load("paper:henri").unwrap();
        m.machine.name = name.to_string();
        let mut t = synthetic_trace(0, 0);
        t.machine.hostname = name.to_string();
        let sweep = Sweep::new(&t, name);
        let grid = Grid::new(&m, name, &Measurements::default()).unwrap();
        let stacked = Stacked::all(&m, name, &Measurements::default());
        for format in [ImageFormat::Svg, ImageFormat::Png] {
            let mut drawn = vec![
                plot::render(&sweep, format).unwrap(),
                plot::render(&grid, format).unwrap(),
            ];
            drawn.extend(stacked.iter().map(|s| plot::render(s, format).unwrap()));
            if format == ImageFormat::Png {
                continue; // rendered without an error: glyphs, nothing to parse
            }
            for svg in drawn {
                let svg = String::from_utf8(svg).unwrap();
                assert_eq!(raw_hidden(&svg), None, "{name:?}");
                let doc = roxmltree::Document::parse(&svg)
                    .unwrap_or_else(|e| panic!("{name:?}: not well-formed: {e}"));
                let shown = contention::error::escape_line(name);
                assert!(
                    svg_texts(&doc).iter().any(|(t, _)| t.contains(&shown)),
                    "{name:?}: {shown} not drawn"
                );
            }
        }
    }
}
