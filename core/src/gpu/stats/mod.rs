//! What a Vulkan driver compiled each kernel to: registers, instructions,
//! spills and whatever else it reports through
//! `VK_KHR_pipeline_executable_properties`. wgpu does not expose that
//! extension, so [`vulkan`] opens a second, bare Vulkan device on the same
//! physical device with the extension on, compiles each pipeline the
//! [`Gpu`] compiled (naga's SPIR-V of the same composed source, the same
//! bindings and the same df64 formulation) with statistics captured, and
//! reads them back. The figures are the driver's own names and units; they
//! differ between vendors (issue 22 uses them to count what a change saves).
//! This file names and orders the pipelines; builds without wgpu's Vulkan
//! backend (macOS) answer [`Error::MissingFeature`].

#[cfg(vulkan)]
mod counters;
#[cfg(vulkan)]
mod vulkan;

use super::{Gpu, PipelineSource};
#[cfg(not(vulkan))]
use crate::error::Error;
use crate::error::Result;
use crate::precision::Precision;
use crate::shader::ConstValue;

/// A hardware counter the driver offers (`VK_KHR_performance_query`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Counter {
    /// The driver's name for it.
    pub name: String,
    /// The driver's category.
    pub category: String,
    /// The driver's description.
    pub description: String,
    /// Its unit, as Vulkan names it (`BYTES`, `CYCLES`, ...).
    pub unit: String,
}

/// The counters `gpu`'s driver offers on its compute queue family;
/// [`Error::MissingFeature`] where it offers none (no
/// `VK_KHR_performance_query`) or the adapter is not Vulkan.
pub fn performance_counters(gpu: &Gpu) -> Result<Vec<Counter>> {
    #[cfg(vulkan)]
    return counters::list(gpu);
    #[cfg(not(vulkan))]
    {
        let _ = gpu;
        Err(Error::MissingFeature("the Vulkan backend"))
    }
}

/// One figure the driver reports for a compiled executable.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Statistic {
    /// The driver's name for it (e.g. "Register Count").
    pub name: String,
    /// Its value, as the driver formats it (integers without decimals).
    pub value: String,
}

/// One executable of a pipeline (a compute pipeline usually has one).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Executable {
    /// The driver's name for it.
    pub name: String,
    /// Its statistics, in the driver's order.
    pub statistics: Vec<Statistic>,
}

/// The statistics of one pipeline.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PipelineStats {
    /// The module's label.
    pub label: String,
    /// The entry point.
    pub entry: String,
    /// Its precision.
    pub precision: Precision,
    /// The injected constants whose values tell it apart from the other
    /// pipelines of its module, entry point and precision (a sweep's
    /// workgroup sizes, say), as (name, value) in the module's order, then
    /// `source` where only its generated source tells it apart; empty where
    /// it is the only one.
    pub distinct: Vec<(String, String)>,
    /// What the driver compiled it to.
    pub executables: Vec<Executable>,
}

/// The statistics of every pipeline `gpu` has compiled so far, sorted by
/// label and entry point. Errors with [`Error::MissingFeature`] where the
/// adapter is not Vulkan, its driver lacks the extension, or this build has
/// no Vulkan backend.
pub fn pipeline_stats(gpu: &Gpu) -> Result<Vec<PipelineStats>> {
    let driver = Driver::open(gpu)?;
    let mut sources = gpu.compiled();
    sort_sources(&mut sources);
    let distinct = distinct_constants(&sources);
    let out = sources
        .iter()
        .zip(distinct)
        .map(|(s, distinct)| {
            Ok(PipelineStats {
                label: s.spec.label.clone(),
                entry: s.entry.clone(),
                precision: s.spec.precision,
                distinct,
                executables: driver.statistics(s)?,
            })
        })
        .collect();
    driver.destroy();
    out
}

#[cfg(vulkan)]
use vulkan::Driver;

/// No driver to ask: this build has no Vulkan backend (wgpu compiles it
/// out on Apple targets), so no value of this type exists.
#[cfg(not(vulkan))]
enum Driver {}

#[cfg(not(vulkan))]
impl Driver {
    fn open(_gpu: &Gpu) -> Result<Driver> {
        Err(Error::MissingFeature(
            "the Vulkan backend (pipeline statistics; this build has none)",
        ))
    }

    fn statistics(&self, _source: &PipelineSource) -> Result<Vec<Executable>> {
        match *self {}
    }

    fn destroy(self) {
        match self {}
    }
}

/// Whether two pipelines compile one entry point of one module in one
/// precision (they may differ in injected constants).
fn same_kernel(a: &PipelineSource, b: &PipelineSource) -> bool {
    (&a.spec.label, &a.entry, a.spec.precision) == (&b.spec.label, &b.entry, b.spec.precision)
}

/// Orders pipelines by module, entry point and precision, then by their
/// constants' values (numerically, so a sweep's wg 64 comes before 128).
fn sort_sources(sources: &mut [PipelineSource]) {
    let values = |s: &PipelineSource| -> Vec<f64> {
        s.spec.consts.iter().map(|(_, v)| order_value(v)).collect()
    };
    sources.sort_by(|a, b| {
        (&a.spec.label, &a.entry, a.spec.precision)
            .cmp(&(&b.spec.label, &b.entry, b.spec.precision))
            .then_with(|| {
                let (x, y) = (values(a), values(b));
                x.iter()
                    .zip(&y)
                    .map(|(p, q)| p.total_cmp(q))
                    .find(|o| o.is_ne())
                    .unwrap_or(x.len().cmp(&y.len()))
            })
    });
}

/// A constant as a number to order pipelines by (`true` is 1).
fn order_value(v: &ConstValue) -> f64 {
    match v {
        ConstValue::U32(v) => f64::from(*v),
        ConstValue::Bool(v) => f64::from(u8::from(*v)),
        ConstValue::F32(v) => f64::from(*v),
    }
}

/// For each pipeline, its constants whose values are not the same in every
/// pipeline of the same kernel ([`same_kernel`]), and, where the peers'
/// generated sources differ (a form a module writes out rather than
/// injects as a constant), `source` = `#n`, the ordinal of its source among
/// the peers' distinct ones in their sorted order.
fn distinct_constants(sources: &[PipelineSource]) -> Vec<Vec<(String, String)>> {
    sources
        .iter()
        .map(|s| {
            let peers: Vec<&PipelineSource> =
                sources.iter().filter(|o| same_kernel(o, s)).collect();
            let varies = |name: &str, value: &ConstValue| {
                peers.iter().any(|o| {
                    o.spec
                        .consts
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| v)
                        != Some(value)
                })
            };
            let mut named: Vec<(String, String)> = s
                .spec
                .consts
                .iter()
                .filter(|(name, value)| varies(name, value))
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect();
            let mut texts: Vec<(&str, &[std::borrow::Cow<'static, str>], bool)> = Vec::new();
            for o in &peers {
                if !texts.contains(&source_text(o)) {
                    texts.push(source_text(o));
                }
            }
            if texts.len() > 1 {
                let n = texts.iter().position(|t| *t == source_text(s)).unwrap_or(0);
                named.push(("source".to_string(), format!("#{}", n + 1)));
            }
            named
        })
        .collect()
}

/// What a pipeline's composed source is made of besides its constants.
fn source_text(s: &PipelineSource) -> (&str, &[std::borrow::Cow<'static, str>], bool) {
    (s.spec.source, &s.spec.includes, s.spec.subgroups)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::ShaderSpec;

    fn source(label: &str, entry: &str, wg: u32, stage: u32) -> PipelineSource {
        PipelineSource {
            spec: ShaderSpec::new(label, "", Precision::F32)
                .with_u32("WG", wg)
                .with_u32("STAGE", stage)
                .with_u32("CAP", 32),
            entry: entry.into(),
            binds: Vec::new(),
        }
    }

    /// A sweep's pipelines of one kernel are told apart by the constants
    /// that vary among them, in numeric order; a lone kernel names none.
    #[test]
    fn pipelines_of_one_kernel_are_named_by_the_constants_that_vary() {
        let mut sources = vec![
            source("comd", "force_cell", 256, 256),
            source("comd", "force_cell", 64, 256),
            source("comd", "force_cell", 128, 256),
            source("comd", "force_atom", 128, 256),
        ];
        sort_sources(&mut sources);
        let named: Vec<(String, Vec<(String, String)>)> = sources
            .iter()
            .map(|s| s.entry.clone())
            .zip(distinct_constants(&sources))
            .collect();
        let wg = |v: &str| vec![("WG".to_string(), v.to_string())];
        assert_eq!(
            named,
            [
                ("force_atom".into(), vec![]),
                ("force_cell".into(), wg("64")),
                ("force_cell".into(), wg("128")),
                ("force_cell".into(), wg("256")),
            ]
        );
    }

    /// Pipelines of one kernel whose generated sources differ, with the
    /// same constants, are told apart by their source's ordinal.
    #[test]
    fn generated_forms_of_one_kernel_are_numbered() {
        let form = |include: &'static str, wg: u32| {
            let mut s = source("milc", "dslash_fused", wg, 1);
            s.spec = s.spec.with_include(include);
            s
        };
        let mut sources = vec![
            form("fn a() {}", 128),
            form("fn b() {}", 128),
            form("fn a() {}", 256),
        ];
        sort_sources(&mut sources);
        let named: Vec<String> = distinct_constants(&sources)
            .iter()
            .map(|d| {
                d.iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            named,
            ["WG=128 source=#1", "WG=128 source=#2", "WG=256 source=#1"]
        );
        let lone = vec![source("su3", "main", 128, 1)];
        assert_eq!(distinct_constants(&lone), [Vec::<(String, String)>::new()]);
    }
}
