//! What sysfs says of a GPU: its PCIe link as trained and at best (in words:
//! `crate::pcie`), and the kernel driver's version. A link that trained below its best
//! (Gen4 on a Gen5 slot, x8 of x16) caps the copies at a fraction of their speed, and
//! nothing else on the node says so: the trace records both, the plan warns, and a survey's
//! fleet report names a node whose link differs from the fleet's.
//!
//! GPUs train their links down when idle to save power (an H100 idles at 2.5 GT/s): the link
//! is read while copies run (`crate::gpu::cuda`), and a reading below the best is a warning,
//! never an error.

use crate::trace::PcieLink;
use std::path::Path;

/// Where sysfs lists PCI devices by bus id (`0000:3b:00.0/current_link_speed`).
pub const PCI_DEVICES: &str = "/sys/bus/pci/devices";

/// Where the NVIDIA kernel module says its version (`580.95.05`).
pub const NVIDIA_MODULE_VERSION: &str = "/sys/module/nvidia/version";

/// The link of the PCI device `bus_id` under `devices` (a fake sysfs in tests), or `None`
/// when sysfs does not say (a virtual function, a container without `/sys`).
pub fn read_link(devices: &Path, bus_id: &str) -> Option<PcieLink> {
    let dir = devices.join(bus_id.to_ascii_lowercase());
    let text = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    Some(PcieLink {
        speed_gts: speed(&text("current_link_speed")?)?,
        width: text("current_link_width")?.trim().parse().ok()?,
        max_speed_gts: speed(&text("max_link_speed")?)?,
        max_width: text("max_link_width")?.trim().parse().ok()?,
    })
}

/// A PCI bus id as sysfs and hwloc write it (`0000:3b:00.0`): the CUDA driver writes the
/// domain with 4 or 8 digits and upper case (`00000000:3B:00.0`).
pub fn normal_bus_id(id: &str) -> String {
    let id = id.trim().to_ascii_lowercase();
    match id.split_once(':') {
        Some((domain, rest)) => match u32::from_str_radix(domain, 16) {
            Ok(d) => format!("{d:04x}:{rest}"),
            Err(_) => id,
        },
        None => id,
    }
}

/// The driver's version from `path` (the NVIDIA module's), when it says one.
pub fn driver_version(path: &Path) -> Option<String> {
    let v = std::fs::read_to_string(path).ok()?;
    let v = v.trim();
    (!v.is_empty() && v.len() < 64).then(|| v.to_string())
}

/// GT/s of a sysfs link speed (`32.0 GT/s PCIe`, `2.5 GT/s`); `None` for `Unknown`.
fn speed(text: &str) -> Option<f64> {
    let gts: f64 = text.split_whitespace().next()?.parse().ok()?;
    (gts.is_finite() && gts > 0.0).then_some(gts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_device(root: &Path, bus: &str, files: &[(&str, &str)]) {
        let dir = root.join(bus);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }

    #[test]
    fn a_link_is_read_from_sysfs_as_trained_and_at_best() {
        let root = tempfile::tempdir().unwrap();
        fake_device(
            root.path(),
            "0000:3b:00.0",
            &[
                ("current_link_speed", "16.0 GT/s PCIe\n"),
                ("current_link_width", "16\n"),
                ("max_link_speed", "32.0 GT/s PCIe\n"),
                ("max_link_width", "16\n"),
            ],
        );
        // The driver writes bus ids in upper case; sysfs in lower.
        let link = read_link(root.path(), "0000:3B:00.0").expect("read");
        assert_eq!(link.speed_gts, 16.0);
        assert_eq!(link.max_speed_gts, 32.0);
        assert_eq!((link.width, link.max_width), (16, 16));
        assert!(link.below_best());
    }

    #[test]
    fn what_sysfs_does_not_say_is_none() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(read_link(root.path(), "0000:01:00.0"), None);
        fake_device(
            root.path(),
            "0000:01:00.0",
            &[
                ("current_link_speed", "Unknown\n"),
                ("current_link_width", "0\n"),
                ("max_link_speed", "Unknown\n"),
                ("max_link_width", "255\n"),
            ],
        );
        assert_eq!(read_link(root.path(), "0000:01:00.0"), None);
        assert_eq!(driver_version(&root.path().join("version")), None);
        std::fs::write(root.path().join("version"), "580.95.05\n").unwrap();
        assert_eq!(
            driver_version(&root.path().join("version")).as_deref(),
            Some("580.95.05")
        );
        assert_eq!(normal_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
        assert_eq!(normal_bus_id("0001:C1:00.0\n"), "0001:c1:00.0");
    }
}
