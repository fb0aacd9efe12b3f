//! A GPU's PCIe link ([`PcieLink`], as the trace records it from sysfs) in words, and what
//! it caps: the plan of `measure --engine gpu` warns of a link below its best, and the fleet
//! report of a GPU survey compares the nodes' links (a node whose GPU trained at Gen4 or x8
//! where the fleet's run at Gen5 x16 moves its copies at half their speed, and nothing else on
//! the node says so).

use crate::trace::PcieLink;

/// The PCIe generation of a speed per lane: Gen1 2.5 GT/s, Gen2 5, Gen3 8, Gen4 16, Gen5 32,
/// Gen6 64.
pub fn generation(gts: f64) -> Option<u32> {
    [
        (2.5, 1),
        (5.0, 2),
        (8.0, 3),
        (16.0, 4),
        (32.0, 5),
        (64.0, 6),
    ]
    .iter()
    .find(|(s, _)| (gts - s).abs() < 0.01)
    .map(|&(_, g)| g)
}

/// `Gen5 x16`, or the speed itself for one that is no generation's.
fn as_trained(gts: f64, width: u32) -> String {
    match generation(gts) {
        Some(g) => format!("Gen{g} x{width}"),
        None => format!("{gts} GT/s x{width}"),
    }
}

impl PcieLink {
    /// The link in words: `PCIe Gen5 x16`, with its best when it trained below it.
    pub fn describe(&self) -> String {
        let now = as_trained(self.speed_gts, self.width);
        if self.below_best() {
            format!(
                "PCIe {now} (below its best, {})",
                as_trained(self.max_speed_gts, self.max_width)
            )
        } else {
            format!("PCIe {now}")
        }
    }

    /// Whether the link trained below what the device and its slot allow.
    pub fn below_best(&self) -> bool {
        self.speed_gts < self.max_speed_gts - 0.01 || self.width < self.max_width
    }

    /// The link's raw bandwidth one way, GB/s (10^9 B/s), after line coding (8b/10b to
    /// Gen2, 128b/130b from Gen3): what the copies cannot beat. Gen5 x16: 63.0 GB/s.
    pub fn raw_gbps(&self) -> f64 {
        let coding = if self.speed_gts <= 5.0 {
            0.8
        } else {
            128.0 / 130.0
        };
        self.speed_gts * coding * f64::from(self.width) / 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_said_as_trained_and_at_best_when_below_it() {
        let gen4 = PcieLink {
            speed_gts: 16.0,
            width: 16,
            max_speed_gts: 32.0,
            max_width: 16,
        };
        assert!(gen4.below_best());
        assert_eq!(gen4.describe(), "PCIe Gen4 x16 (below its best, Gen5 x16)");
        let best = PcieLink {
            speed_gts: 32.0,
            ..gen4
        };
        assert!(!best.below_best());
        assert_eq!(best.describe(), "PCIe Gen5 x16");
        assert!((best.raw_gbps() - 63.0).abs() < 0.1, "{}", best.raw_gbps());
        let narrow = PcieLink { width: 8, ..best };
        assert!(narrow.below_best());
        assert_eq!(generation(8.0), Some(3));
        assert_eq!(generation(64.0), Some(6));
        assert_eq!(generation(10.0), None);
    }
}
