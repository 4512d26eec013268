//! `skylight counters`: the hardware counters the adapter's Vulkan driver
//! offers (`VK_KHR_performance_query`), or that it offers none.

use anyhow::{Context, Result};
use skylight_core::Error;
use skylight_core::gpu::stats::performance_counters;
use skylight_core::gpu::{Api, Gpu, Selector};

/// Prints the counters of the adapter `selector` names (on `api`), one per line
/// (category, name, unit, description); a driver without the extension
/// is reported as such, which is an answer, not a failure.
pub fn run(selector: &str, api: Option<Api>) -> Result<bool> {
    let gpu = pollster::block_on(Gpu::open(&Selector::parse(selector), api))
        .context("opening the adapter")?;
    match performance_counters(&gpu) {
        Ok(counters) => {
            println!(
                "{}: {} counters (VK_KHR_performance_query)",
                gpu.info.label(),
                counters.len()
            );
            for c in counters {
                println!(
                    "{} / {} [{}]: {}",
                    c.category, c.name, c.unit, c.description
                );
            }
        }
        Err(Error::MissingFeature(what)) => {
            println!(
                "{}: no hardware counters: {what} is not offered by this driver",
                gpu.info.label()
            );
        }
        Err(e) => return Err(e).context("listing the driver's counters"),
    }
    Ok(true)
}
