//! Which build of the tool produced an output: recorded in every report and trace so a number
//! can be traced back to the code and compiler flags that measured or predicted it.
//! `build.rs` captures these at compile time.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub(crate) tool: String,
    pub version: String,
    /// `git describe`-like commit of the source tree, `-dirty` when it had uncommitted changes.
    pub git_commit: String,
    pub rustc: String,
    pub target: String,
    /// `target_feature`s enabled at compile time (what the kernels may assume without a
    /// run-time check).
    pub(crate) target_features: Vec<String>,
    pub profile: String,
}

impl Provenance {
    /// This build's provenance.
    pub fn current() -> Self {
        Provenance {
            tool: "contention".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: env!("CONTENTION_GIT_COMMIT").to_string(),
            rustc: env!("CONTENTION_RUSTC_VERSION").to_string(),
            target: env!("CONTENTION_TARGET").to_string(),
            target_features: env!("CONTENTION_TARGET_FEATURES")
                .split(',')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect(),
            profile: env!("CONTENTION_PROFILE").to_string(),
        }
    }

    /// One line for headers: `contention 0.1.0 (abc1234, rustc 1.95.0, release)`.
    pub fn summary(&self) -> String {
        format!(
            "{} {} ({}, {}, {})",
            self.tool, self.version, self.git_commit, self.rustc, self.profile
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_script_filled_every_field() {
        let p = Provenance::current();
        assert!(p.rustc.starts_with("rustc "), "{}", p.rustc);
        assert!(!p.git_commit.is_empty() && !p.target.is_empty());
        assert!(p.profile == "debug" || p.profile == "release");
        #[cfg(target_arch = "x86_64")]
        assert!(p.target_features.iter().any(|f| f == "sse2"));
    }
}
