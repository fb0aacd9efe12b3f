//! The module maps cannot drift: every file of `src/` (and of each member crate's `src/`,
//! such as `model/src/`) that declares submodules (`lib.rs`,
//! each `mod.rs`, or a `name.rs` beside a `name/` folder) names each of them in its leading
//! `//!` doc, as `` `name` `` or [`` `name` ``]. A newcomer reads the map to know where things
//! live; a module added without a line there is one the map hides.
//!
//! Only file modules count (`mod x;`, `pub mod x;`, `pub(crate) mod x;`): an inline
//! `mod x { ... }` is read where it stands. Modules compiled only for tests (`#[cfg(test)]`
//! on the line above) are not part of the map.

use std::path::{Path, PathBuf};

/// The names of the file modules `source` declares, tests-only ones left out.
fn declared_modules(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut previous = "";
    for line in source.lines() {
        let trimmed = line.trim();
        let after_vis = match trimmed.strip_prefix("pub") {
            Some(rest) if rest.starts_with(' ') => rest.trim_start(),
            Some(rest) if rest.starts_with('(') => match rest.find(')') {
                Some(close) => rest[close + 1..].trim_start(),
                None => trimmed,
            },
            _ => trimmed,
        };
        if let Some(name) = after_vis
            .strip_prefix("mod ")
            .and_then(|rest| rest.trim().strip_suffix(';'))
        {
            let name = name.trim();
            let is_ident =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if is_ident && previous != "#[cfg(test)]" {
                names.push(name.to_string());
            }
        }
        previous = trimmed;
    }
    names
}

/// The file's leading doc: its `//!` lines before the first item.
fn leading_doc(source: &str) -> String {
    source
        .lines()
        .map(str::trim_start)
        .take_while(|l| l.is_empty() || l.starts_with("//"))
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `source` declares that its leading doc does not name in backticks.
fn missing_from_map(source: &str) -> Vec<String> {
    let doc = leading_doc(source);
    declared_modules(source)
        .into_iter()
        .filter(|name| !doc.contains(&format!("`{name}`")))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_is_named_in_its_parents_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    // The workspace's member crates, each a folder at the top with its own Cargo.toml.
    for entry in std::fs::read_dir(root).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() && dir.join("src").is_dir() {
            rust_files(&dir.join("src"), &mut files);
        }
    }
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        let missing = missing_from_map(&source);
        if !missing.is_empty() {
            problems.push(format!(
                "{}: its leading //! doc does not name {}",
                file.strip_prefix(root).unwrap().display(),
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "module maps out of date (add a line naming each module, as [`name`] or `name`):\n{}",
        problems.join("\n")
    );
}

/// The check itself: a map that drops a module, a module named only in a later comment, and
/// each form of declaration are all caught; test-only modules and inline ones are not asked for.
#[test]
fn the_map_check_finds_a_missing_module() {
    let source = "//! The parts:\n//! - [`alpha`]: one;\n//! - `beta`: two.\n\n\
        pub mod alpha;\nmod beta;\npub(crate) mod gamma;\n\
        /// `delta` is named here, not in the map.\npub(super) mod delta;\n\
        #[cfg(test)]\nmod tests;\nmod inline {}\n";
    assert_eq!(
        declared_modules(source),
        ["alpha", "beta", "gamma", "delta"]
    );
    assert_eq!(missing_from_map(source), ["gamma", "delta"]);
    let complete = source.replace("`beta`: two.", "`beta`, `gamma`, `delta`: two.");
    assert!(missing_from_map(&complete).is_empty());
}
